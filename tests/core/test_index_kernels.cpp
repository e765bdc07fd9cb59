// test_index_kernels.cpp — invariant: the indexing kernels (gather, index_select, scatter_add,
// index_add) and the ops built on them (embedding, one_hot) equal their float64 oracles on random
// indices with repeats, over every dim, for non-contiguous inputs and indices, in float32 and
// float64 (and int64 data). scatter_add/index_add add every repeat of an index; the base tensor is
// not modified.
//
// Tolerances: gather, index_select, embedding, one_hot copy values: exact. scatter_add/index_add
// add at most a handful of terms in [−1, 1] to a base in [−1, 1] (repeats of one index among ≤ 7):
// float32 atol 1e-6 (≤ 8 roundings of 6e-8 on sums ≤ 8), float64 1e-14.
#include <gtest/gtest.h>

#include "core/ops.h"
#include "core/reference/reference.h"
#include "tests/core/core_test_util.h"

namespace lintra {
namespace {

using testing::close_to;
using testing::describe_case;
using testing::equal_to;
using testing::kAllLayouts;
using testing::Layout;
using testing::make_input;
using testing::Tol;

const std::vector<DType> kData = {DType::f32, DType::f64};
Tol add_tol(DType dt) { return dt == DType::f32 ? Tol{0, 1e-6} : Tol{0, 1e-14}; }

// Random int64 indices in [0, n) of `shape`; transposed (non-contiguous) when asked and 2-d or more.
Tensor random_index(const Shape& shape, int64_t n, Generator& gen, bool transposed) {
  if (!transposed || shape.size() < 2) return ops::randint(shape, 0, n, gen);
  Shape rev = shape;
  std::swap(rev[0], rev[1]);
  return ops::randint(rev, 0, n, gen).transpose(0, 1);
}

TEST(CoreIndex, GatherMatchesReference) {
  Generator gen(61);
  const Shape xs{3, 5, 7};
  for (DType dt : kData)
    for (Layout l : kAllLayouts)
      for (int64_t d = 0; d < 3; ++d)
        for (bool tidx : {false, true}) {
          Tensor x = make_input(xs, dt, l, gen);
          // Index smaller than x in the other dims, longer than x along d (repeats).
          Shape is{2, 4, 6};
          is[size_t(d)] = 9;
          Tensor index = random_index(is, xs[size_t(d)], gen, tidx);
          EXPECT_TRUE(equal_to(ops::gather(x, d, index), reference::gather(x, d, index)))
              << describe_case(xs, dt, l) << ", dim " << d << (tidx ? ", transposed index" : "");
        }
}

TEST(CoreIndex, IndexSelectMatchesReference) {
  Generator gen(62);
  const Shape xs{3, 5, 7};
  for (DType dt : {DType::f32, DType::f64, DType::i64})
    for (Layout l : kAllLayouts)
      for (int64_t d = 0; d < 3; ++d) {
        Tensor x = dt == DType::i64 ? ops::randint(xs, -9, 9, gen) : make_input(xs, dt, l, gen);
        Tensor index = ops::randint({11}, 0, xs[size_t(d)], gen);
        Tensor strided_index = ops::randint({22}, 0, xs[size_t(d)], gen).slice(0, 0, 22, 2);
        for (const Tensor& idx : {index, strided_index})
          EXPECT_TRUE(equal_to(ops::index_select(x, d, idx), reference::index_select(x, d, idx)))
              << describe_case(xs, dt, l) << ", dim " << d;
      }
}

TEST(CoreIndex, ScatterAddAccumulatesRepeatsAndKeepsTheBase) {
  Generator gen(63);
  const Shape bs{4, 5, 6};
  for (DType dt : kData)
    for (Layout l : kAllLayouts)
      for (int64_t d = 0; d < 3; ++d)
        for (bool tidx : {false, true}) {
          Tensor base = make_input(bs, dt, l, gen);
          const Tensor base_copy = base.clone();
          Shape is{3, 4, 5};
          is[size_t(d)] = 7;  // more entries than the dim: repeats are certain
          Tensor index = random_index(is, bs[size_t(d)], gen, tidx);
          Tensor src = make_input(is, dt, l == Layout::expanded ? Layout::permuted : l, gen);
          Tensor got = ops::scatter_add(base, d, index, src);
          std::string what = describe_case(bs, dt, l) + fmt::format(", dim {}", d);
          EXPECT_TRUE(close_to(got, reference::scatter_add(base, d, index, src), add_tol(dt))) << what;
          EXPECT_TRUE(equal_to(base, base_copy)) << what;
          // A src larger than the index: only its leading block is read.
          Shape big = is;
          for (auto& v : big) v += 1;
          Tensor src_big = Tensor::uniform(big, gen, -1, 1, dt);
          Tensor block = src_big;
          for (int64_t k = 0; k < 3; ++k) block = block.narrow(k, 0, is[size_t(k)]);
          EXPECT_TRUE(close_to(ops::scatter_add(base, d, index, src_big),
                               reference::scatter_add(base, d, index, block), add_tol(dt)))
              << what << ", larger src";
        }
}

TEST(CoreIndex, IndexAddEqualsScatterAddOfExpandedIndex) {
  // index_add(base, d, i, src) adds src's slice j into base's slice i[j]: the same as scatter_add
  // with i broadcast along every other dim.
  Generator gen(64);
  const Shape bs{4, 5, 6};
  for (DType dt : kData)
    for (int64_t d = 0; d < 3; ++d) {
      Tensor base = Tensor::uniform(bs, gen, -1, 1, dt);
      Tensor index = ops::randint({8}, 0, bs[size_t(d)], gen);
      Shape ss = bs;
      ss[size_t(d)] = 8;
      Tensor src = Tensor::uniform(ss, gen, -1, 1, dt).transpose(0, 2).contiguous().transpose(0, 2);
      Shape view(3, 1);
      view[size_t(d)] = 8;
      Tensor full_index = index.reshape(view).expand(ss);
      EXPECT_TRUE(close_to(ops::index_add(base, d, index, src), reference::scatter_add(base, d, full_index, src),
                           add_tol(dt)))
          << dt << ", dim " << d;
    }
}

TEST(CoreIndex, EmbeddingAndOneHot) {
  Generator gen(65);
  Tensor w = Tensor::uniform({13, 5}, gen, -1, 1, DType::f32);
  Tensor idx = ops::randint({3, 7}, 0, 13, gen);
  Tensor e = ops::embedding(w, idx.transpose(0, 1));
  ASSERT_EQ(e.shape(), (Shape{7, 3, 5}));
  for (int64_t i = 0; i < 7; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 5; ++k)
        ASSERT_EQ(e.at({i, j, k}), w.at({int64_t(idx.at({j, i})), k}));
  Tensor oh = ops::one_hot(idx, 13, DType::f64);
  ASSERT_EQ(oh.shape(), (Shape{3, 7, 13}));
  EXPECT_TRUE(equal_to(ops::sum(oh, {-1}), Tensor::ones({3, 7}, DType::f64)));
  EXPECT_TRUE(equal_to(ops::argmax(oh, -1), idx));
}

TEST(CoreIndex, LargeGatherAndIndexSelectRunInParallel) {
  // 200×300 outputs: above the parallel grain.
  Generator gen(66);
  Tensor x = Tensor::uniform({200, 300}, gen, -1, 1, DType::f32);
  Tensor index = ops::randint({200, 300}, 0, 300, gen);
  EXPECT_TRUE(equal_to(ops::gather(x, 1, index), reference::gather(x, 1, index)));
  Tensor rows = ops::randint({250}, 0, 200, gen);
  EXPECT_TRUE(equal_to(ops::index_select(x, 0, rows), reference::index_select(x, 0, rows)));
}

}  // namespace
}  // namespace lintra
