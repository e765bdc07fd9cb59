// test_range_kernels.cpp — the kernels arange and index_range against core/reference/range.cpp.
// Invariants: arange gives start + i·step in every dtype; index_range counts the values outside
// [low, high) exactly and finds the first in row-major order, for any layout of the index.
#include <gtest/gtest.h>

#include "core/ops.h"
#include "core/reference/reference.h"
#include "core/rng.h"
#include "tests/core/core_test_util.h"

namespace lintra {
namespace {

TEST(CoreRangeKernels, ArangeMatchesReference) {
  for (DType dt : {DType::f32, DType::f64, DType::i64, DType::u8}) {
    for (int64_t n : {0, 1, 7, 40000}) {
      Tensor out = Tensor::empty({n}, dt);
      kernels::on(out).arange(out, 2, 3);
      Tensor ref = reference::arange(n, 2, 3).to(dt);
      EXPECT_EQ(out.to_vector<double>(), ref.to_vector<double>()) << dtype_name(dt) << " n=" << n;
    }
  }
  EXPECT_EQ(Tensor::arange(4).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST(CoreRangeKernels, IndexRangeMatchesReference) {
  Generator gen(7);
  for (int64_t n : {1, 10, 50000}) {
    std::vector<int64_t> v(static_cast<size_t>(n));
    for (int64_t& x : v) x = gen.randint(-3, 40);
    const Tensor index = Tensor::from_vector(v, {n});
    for (auto [lo, hi] : {std::pair<int64_t, int64_t>{0, 37}, {-3, 40}, {5, 6}, {100, 200}}) {
      Tensor r = Tensor::empty({3}, DType::i64);
      kernels::on(r).index_range(index, lo, hi, r);
      EXPECT_EQ(r.to_vector<int64_t>(), reference::index_range(index, lo, hi).to_vector<int64_t>())
          << "n=" << n << " [" << lo << ", " << hi << ")";
    }
  }
  // Strided views: positions are row-major over the view.
  const Tensor m = Tensor::from_vector(std::vector<int64_t>{0, 1, 2, 9, 4, 5}, {2, 3}).transpose(0, 1);  // [[0,9],[1,4],[2,5]]
  const ops::IndexRange r = ops::index_range(m, 0, 5);
  EXPECT_EQ(r.outside, 2);
  EXPECT_EQ(r.position, 1);
  EXPECT_EQ(r.value, 9);
  EXPECT_EQ(ops::index_range(m, 0, 10).position, -1);
}

}  // namespace
}  // namespace lintra
