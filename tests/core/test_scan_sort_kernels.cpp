// test_scan_sort_kernels.cpp — invariant: cumsum (forward and reverse) and the stable sort
// (ascending and descending) equal their float64 oracles in core/reference/ over every dim of
// odd-sized inputs, contiguous or not, in float32 and float64. Sort is STABLE: equal values keep
// their input order, in both directions (the oracle is an insertion sort).
//
// Tolerances: sort is exact (it permutes inputs). cumsum accumulates at most 17 terms in [−1, 1]:
// worst-case rounding (n − 1)·u·Σ|x| gives float32 1.6e-5 → atol 2e-5, float64 3e-14 → atol 1e-13.
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

const std::vector<Shape> kShapes = {{3, 5, 7}, {1, 13}, {17}};
const std::vector<DType> kFloat = {DType::f32, DType::f64};

TEST(CoreScanSort, CumsumBothDirectionsMatchesReference) {
  Generator gen(31);
  for (DType dt : kFloat)
    for (const Shape& s : kShapes)
      for (Layout l : kAllLayouts)
        for (int64_t d = 0; d < int64_t(s.size()); ++d)
          for (bool reverse : {false, true}) {
            Tensor x = make_input(s, dt, l, gen);
            Tol tol = dt == DType::f32 ? Tol{0, 2e-5} : Tol{0, 1e-13};
            EXPECT_TRUE(close_to(ops::cumsum(x, d, reverse), reference::cumsum(x, d, reverse), tol))
                << describe_case(s, dt, l) << ", dim " << d << (reverse ? ", reverse" : "");
          }
}

TEST(CoreScanSort, CumsumSmallExample) {
  Tensor x = Tensor::from_vector({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3});
  EXPECT_EQ(ops::cumsum(x, 1).to_vector<float>(), (std::vector<float>{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(ops::cumsum(x, 1, true).to_vector<float>(), (std::vector<float>{6, 5, 3, 15, 11, 6}));
  EXPECT_EQ(ops::cumsum(x, 0, true).to_vector<float>(), (std::vector<float>{5, 7, 9, 4, 5, 6}));
  Generator gen(3);
  Tensor i = ops::randint({4, 3}, -9, 9, gen);
  EXPECT_TRUE(equal_to(ops::cumsum(i, 0), reference::cumsum(i, 0, false)));  // int64: exact
}

// Checks one sort against the oracle: indices exactly (stability), values = x gathered by them.
void expect_sort_matches(const Tensor& x, int64_t d, bool descending, const std::string& what) {
  auto [values, indices] = ops::sort(x, d, descending);
  ASSERT_EQ(indices.dtype(), DType::i64);
  ASSERT_EQ(values.dtype(), x.dtype());
  Tensor want = reference::sort_indices(x, d, descending);
  EXPECT_TRUE(equal_to(indices, want)) << what;
  EXPECT_TRUE(equal_to(values, reference::gather(x, d, want))) << what;
  EXPECT_TRUE(equal_to(ops::argsort(x, d, descending), want)) << what;
}

TEST(CoreScanSort, SortMatchesReferenceOnDistinctValues) {
  Generator gen(32);
  for (DType dt : kFloat)
    for (const Shape& s : kShapes)
      for (Layout l : kAllLayouts)
        for (int64_t d = 0; d < int64_t(s.size()); ++d)
          for (bool desc : {false, true})
            expect_sort_matches(make_input(s, dt, l, gen), d, desc,
                                describe_case(s, dt, l) + fmt::format(", dim {}{}", d, desc ? ", descending" : ""));
}

TEST(CoreScanSort, SortIsStableWithTies) {
  // Values from {0, 1, 2}: every line has many ties, whose input order must be kept.
  Generator gen(33);
  for (DType dt : kFloat)
    for (const Shape& s : kShapes)
      for (Layout l : kAllLayouts)
        for (int64_t d = 0; d < int64_t(s.size()); ++d)
          for (bool desc : {false, true}) {
            Tensor x = make_input(s, dt, l, gen, 0, 3);
            x.copy_(x.to(DType::i64));
            expect_sort_matches(x, d, desc,
                                describe_case(s, dt, l) + fmt::format(", ties, dim {}{}", d, desc ? ", descending" : ""));
          }
}

TEST(CoreScanSort, SortSmallExample) {
  Tensor x = Tensor::from_vector({2.f, 1.f, 2.f, 1.f, 3.f}, {5});
  auto [v, i] = ops::sort(x, 0);
  EXPECT_EQ(v.to_vector<float>(), (std::vector<float>{1, 1, 2, 2, 3}));
  EXPECT_EQ(i.to_vector<int64_t>(), (std::vector<int64_t>{1, 3, 0, 2, 4}));
  auto [vd, id] = ops::sort(x, 0, /*descending=*/true);
  EXPECT_EQ(vd.to_vector<float>(), (std::vector<float>{3, 2, 2, 1, 1}));
  EXPECT_EQ(id.to_vector<int64_t>(), (std::vector<int64_t>{4, 0, 2, 1, 3}));  // ties still in input order
}

TEST(CoreScanSort, LargeSortAndCumsumRunInParallel) {
  // 40,000 elements: above the parallel grain; lines along dim 0 are strided.
  Generator gen(34);
  Tensor x = Tensor::uniform({200, 200}, gen, 0, 50, DType::f64);
  x.copy_(x.to(DType::i64));  // ties
  expect_sort_matches(x, 0, false, "200×200 dim 0");
  expect_sort_matches(x, 1, true, "200×200 dim 1 descending");
  // Integer-valued float64 sums are exact.
  EXPECT_TRUE(equal_to(ops::cumsum(x, 0, true), reference::cumsum(x, 0, true)));
  EXPECT_TRUE(equal_to(ops::cumsum(x.transpose(0, 1), 1), reference::cumsum(x.transpose(0, 1), 1, false)));
}

}  // namespace
}  // namespace lintra
