// test_gradcheck_index.cpp — invariant: the backward of every differentiable indexing, scan and sort
// op (index_select, gather, scatter_add, embedding, cumsum in both directions, sort) agrees with
// central finite differences (gradcheck, float64). Indices repeat, so the backward must ADD the
// gradients of repeated rows/elements; inputs are also non-contiguous. Sort's inputs are distinct
// (gaps ≥ 0.06), so the permutation is constant within ±ε.
// Tolerances: gradcheck's defaults, justified in autograd_test_util.h.
#include <gtest/gtest.h>

#include "tests/autograd/autograd_test_util.h"

namespace lintra {
namespace {

using testing::gradcheck_ok;
using testing::rnd;
using testing::rnd_distinct;

Tensor idx(std::vector<int64_t> v, const Shape& s) { return Tensor::from_vector(v, s); }

TEST(AutogradGradcheckIndex, IndexSelect) {
  Generator gen(131);
  Tensor x = rnd({4, 3}, gen);
  Tensor rows = idx({2, 0, 2, 3, 2}, {5});  // repeats
  Tensor cols = idx({1, 1, 0}, {3});
  EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return index_select(v[0], 0, rows); }, {x}));
  EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return square(index_select(v[0], 1, cols)); }, {x}));
  EXPECT_TRUE(gradcheck_ok(
      [&](const std::vector<Var>& v) { return index_select(transpose(v[0], 0, 1), -1, rows.slice(0, 0, 5, 2)); }, {x}));
}

TEST(AutogradGradcheckIndex, Gather) {
  Generator gen(132);
  Tensor x = rnd({3, 4}, gen);
  Tensor i1 = ops::randint({3, 6}, 0, 4, gen);  // along dim 1, longer than the dim: repeats
  Tensor i0 = ops::randint({2, 3}, 0, 3, gen);  // along dim 0, smaller than x in dim 1
  EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return gather(v[0], 1, i1); }, {x}));
  EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return exp(gather(v[0], 0, i0)); }, {x}));
  Tensor it = ops::randint({4, 3}, 0, 4, gen);  // drawn once: f must be the same function at every call
  EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return gather(transpose(v[0], 0, 1), 0, it); }, {x}));
}

TEST(AutogradGradcheckIndex, ScatterAdd) {
  Generator gen(133);
  Tensor base = rnd({3, 5}, gen), src = rnd({3, 4}, gen);
  Tensor i = ops::randint({3, 4}, 0, 5, gen);
  EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return scatter_add(v[0], 1, i, v[1]); }, {base, src}));
  // Index smaller than src: the unused part of src gets zero gradient.
  Tensor small = ops::randint({2, 3}, 0, 5, gen);
  EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return square(scatter_add(v[0], 1, small, v[1])); },
                           {base, src}));
  // Along dim 0 with a transposed base.
  Tensor bt = rnd({5, 3}, gen), s0 = rnd({4, 5}, gen);
  Tensor i0 = ops::randint({4, 5}, 0, 3, gen);
  EXPECT_TRUE(gradcheck_ok(
      [&](const std::vector<Var>& v) { return scatter_add(transpose(v[0], 0, 1), 0, i0, v[1]); }, {bt, s0}));
}

TEST(AutogradGradcheckIndex, Embedding) {
  Generator gen(134);
  Tensor w = rnd({6, 3}, gen);
  Tensor tokens = idx({1, 4, 1, 0, 4, 4}, {2, 3});  // repeated tokens add their gradients
  EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return embedding(v[0], tokens); }, {w}));
  EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return tanh(embedding(v[0], tokens.transpose(0, 1))); },
                           {w}));
  Tensor wt = rnd({3, 6}, gen);  // a transposed weight
  EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return embedding(transpose(v[0], 0, 1), tokens); }, {wt}));
}

TEST(AutogradGradcheckIndex, CumsumBothDirections) {
  Generator gen(135);
  Tensor x = rnd({3, 4, 2}, gen);
  for (int64_t dim : {0, 1, 2, -1})
    for (bool reverse : {false, true}) {
      EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return cumsum(v[0], dim, reverse); }, {x}))
          << "dim " << dim << (reverse ? " reverse" : "");
      EXPECT_TRUE(gradcheck_ok(
          [&](const std::vector<Var>& v) { return square(cumsum(permute(v[0], {2, 0, 1}), dim, reverse)); }, {x}))
          << "dim " << dim << (reverse ? " reverse" : "") << " permuted";
    }
}

TEST(AutogradGradcheckIndex, Sort) {
  Generator gen(136);
  Tensor x = rnd_distinct({3, 5}, gen);
  for (int64_t dim : {0, 1})
    for (bool desc : {false, true}) {
      EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return sort(v[0], dim, desc).first; }, {x}))
          << "dim " << dim << (desc ? " descending" : "");
      // Weighted so that the position each element lands in matters.
      Tensor w = ops::add(Tensor::arange(15, DType::f64), 1.0).reshape({5, 3});
      EXPECT_TRUE(gradcheck_ok(
          [&](const std::vector<Var>& v) { return mul(sort(transpose(v[0], 0, 1), dim, desc).first, Var(w)); }, {x}))
          << "dim " << dim << (desc ? " descending" : "") << " transposed";
    }
  Var y(Tensor::from_vector({3.f, 1.f, 2.f}, {3}), true);
  auto [values, indices] = sort(y, 0);
  EXPECT_EQ(indices.to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 0}));
  sum(mul(values, Var(Tensor::from_vector({1.f, 10.f, 100.f}, {3})))).backward();
  EXPECT_EQ(y.grad().to_vector<float>(), (std::vector<float>{100, 1, 10}));
}

}  // namespace
}  // namespace lintra
