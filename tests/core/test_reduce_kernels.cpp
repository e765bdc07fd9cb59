// test_reduce_kernels.cpp — invariant: the reduction kernels (sum/max/min over one dim, arg-max/min)
// equal their float64 oracle in core/reference/ over every dim of odd-sized inputs, contiguous or
// not, in float32 and float64; arg-max/min pick the FIRST index among ties; multi-dim reductions
// and keepdim=false give the same values with the reduced dims removed.
//
// Tolerances: max/min/arg are exact (they select an input). Sums are compared with an absolute bound
// from the worst-case error of recursive summation, (n − 1)·u·Σ|x| with u the unit roundoff: inputs
// lie in [−1, 1] and n ≤ 17 here, so float32 (u = 2^-24): 16·6e-8·17 ≈ 1.6e-5 → atol 2e-5;
// float64 (u = 2^-53): ≈ 3e-14 → atol 1e-13. The large case (n = 600, float64) uses
// 599·1.1e-16·600 ≈ 4e-11 → atol 1e-10.
// The float32 Highway path (core/cpu/reduce_simd.h: runs and rows of ≥ 16 elements) is checked on every
// SIMD target this CPU can run (CoreReduceSimd.<Case>/AVX2, …/SSE4, …/SCALAR), row and column
// reductions of lengths with partial vectors, with the same bound computed per case, and with NaN and
// ±inf among the inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/cpu/reduce_simd.h"
#include "core/ops.h"
#include "core/reference/reference.h"
#include "tests/core/core_test_util.h"
#include "tests/core/simd_targets.h"

namespace lintra {
namespace {

using kernels::ReduceOp;
using testing::close_to;
using testing::describe_case;
using testing::equal_to;
using testing::kAllLayouts;
using testing::Layout;
using testing::make_input;
using testing::Tol;

Tol sum_tol(DType dt) { return dt == DType::f32 ? Tol{0, 2e-5} : Tol{0, 1e-13}; }

const std::vector<Shape> kShapes = {{3, 5, 7}, {1, 13}, {17}};
const std::vector<DType> kFloat = {DType::f32, DType::f64};

TEST(CoreReduce, SumMaxMinOverEachDimMatchReference) {
  Generator gen(21);
  for (DType dt : kFloat)
    for (const Shape& s : kShapes)
      for (Layout l : kAllLayouts)
        for (int64_t d = 0; d < int64_t(s.size()); ++d) {
          Tensor x = make_input(s, dt, l, gen);
          std::string what = describe_case(s, dt, l) + fmt::format(", dim {}", d);
          EXPECT_TRUE(close_to(ops::sum(x, {d}, true), reference::reduce(ReduceOp::sum, x, d), sum_tol(dt))) << what;
          EXPECT_TRUE(equal_to(ops::amax(x, {d}, true), reference::reduce(ReduceOp::max, x, d))) << what;
          EXPECT_TRUE(equal_to(ops::amin(x, {d}, true), reference::reduce(ReduceOp::min, x, d))) << what;
          // Negative dims and keepdim=false name the same reduction.
          Tensor squeezed = ops::sum(x, {d - int64_t(s.size())}, false);
          EXPECT_TRUE(equal_to(squeezed.unsqueeze(d), ops::sum(x, {d}, true))) << what;
        }
}

TEST(CoreReduce, ArgMaxMinMatchReference) {
  Generator gen(22);
  for (DType dt : kFloat)
    for (const Shape& s : kShapes)
      for (Layout l : kAllLayouts)
        for (int64_t d = 0; d < int64_t(s.size()); ++d) {
          Tensor x = make_input(s, dt, l, gen);
          std::string what = describe_case(s, dt, l) + fmt::format(", dim {}", d);
          auto [vmax, imax] = ops::max(x, d, true);
          EXPECT_TRUE(equal_to(imax, reference::argmax(x, d))) << what;
          EXPECT_TRUE(equal_to(vmax, reference::reduce(ReduceOp::max, x, d))) << what;
          auto [vmin, imin] = ops::min(x, d, true);
          EXPECT_TRUE(equal_to(imin, reference::argmax(ops::neg(x), d))) << what;
          EXPECT_TRUE(equal_to(vmin, reference::reduce(ReduceOp::min, x, d))) << what;
          EXPECT_TRUE(equal_to(ops::argmax(x, d), reference::argmax(x, d).squeeze(d))) << what;
        }
}

TEST(CoreReduce, ArgMaxPicksTheFirstOfTies) {
  // Small integers: many ties in every line.
  Generator gen(23);
  for (DType dt : kFloat)
    for (Layout l : kAllLayouts) {
      Tensor x = make_input({5, 9, 7}, dt, l, gen, 0, 3);
      x.copy_(x.to(DType::i64));
      for (int64_t d = 0; d < 3; ++d) {
        EXPECT_TRUE(equal_to(ops::max(x, d, true).second, reference::argmax(x, d))) << d;
        EXPECT_TRUE(equal_to(ops::min(x, d, true).second, reference::argmax(ops::neg(x), d))) << d;
      }
    }
  Tensor t = Tensor::from_vector({1.f, 3.f, 0.f, 3.f, 0.f}, {5});
  EXPECT_EQ(ops::argmax(t, 0).item(), 1);
  EXPECT_EQ(ops::argmin(t, 0).item(), 2);
}

TEST(CoreReduce, MultiDimReductionsComposeSingleDimOnes) {
  Generator gen(24);
  for (DType dt : kFloat)
    for (Layout l : kAllLayouts) {
      Tensor x = make_input({3, 5, 7}, dt, l, gen);
      Tensor want = reference::reduce(ReduceOp::sum, reference::reduce(ReduceOp::sum, x, 2), 0).reshape({5});
      EXPECT_TRUE(close_to(ops::sum(x, {0, -1}), want, sum_tol(dt)));
      EXPECT_TRUE(close_to(ops::sum(x, {2, 0}, true), want.reshape({1, 5, 1}), sum_tol(dt)));
      Tensor mx = reference::reduce(ReduceOp::max, reference::reduce(ReduceOp::max, x, 1), 2).reshape({3});
      EXPECT_TRUE(equal_to(ops::amax(x, {1, 2}), mx));
      Tensor all = ops::sum(x);
      EXPECT_EQ(all.dim(), 0);
      // 105 terms reduced one dim at a time (7, then 5, then 3 terms): the rounding bound is
      // (6 + 4 + 2)·u·Σ|x| ≤ 12·6e-8·105 ≈ 7.5e-5 in float32 (→ 2e-4), ≈ 1.4e-13 in float64 (→ 1e-12).
      EXPECT_TRUE(close_to(all, reference::reduce(ReduceOp::sum, want.reshape({5, 1}), 0).reshape({}),
                           dt == DType::f32 ? Tol{0, 2e-4} : Tol{0, 1e-12}));
    }
}

TEST(CoreReduce, LargeReductionsUseEveryLoopShape) {
  // 38,400 elements: above the parallel grain, so the OpenMP paths run; dim 0 is a column
  // reduction (strided along dim), dim 1 a row reduction, and the transposed view swaps them.
  Generator gen(25);
  Tensor x = Tensor::uniform({64, 600}, gen, -1, 1, DType::f64);
  for (const Tensor& v : {x, x.transpose(0, 1)})
    for (int64_t d = 0; d < 2; ++d) {
      EXPECT_TRUE(close_to(ops::sum(v, {d}, true), reference::reduce(ReduceOp::sum, v, d), {0, 1e-10})) << d;
      EXPECT_TRUE(equal_to(ops::amax(v, {d}, true), reference::reduce(ReduceOp::max, v, d))) << d;
      EXPECT_TRUE(equal_to(ops::argmax(v, d, true), reference::argmax(v, d))) << d;
    }
}

TEST(CoreReduce, IntegerSumsAreExact) {
  Generator gen(26);
  Tensor x = ops::randint({5, 7}, -100, 100, gen);
  EXPECT_TRUE(equal_to(ops::sum(x.transpose(0, 1), {1}, true), reference::reduce(ReduceOp::sum, x.transpose(0, 1), 1)));
  Tensor mask = ops::bernoulli({9, 4}, 0.5, gen, kBool);
  Tensor count = ops::sum(mask);
  EXPECT_EQ(count.dtype(), DType::i64);  // u8 sums count in int64
  EXPECT_EQ(count.item(), reference::reduce(ReduceOp::sum, mask.reshape({36}), 0).item());
}

// --- the Highway path: every SIMD target ------------------------------------------------------------

class CoreReduceSimd : public testing::SimdTargetTest {};

// The recursive-summation bound (n − 1)·u·Σ|x| over dim, largest over the output, float32's u = 2^-24.
double sum_bound(const Tensor& x, int64_t dim) {
  const double n = double(x.size(dim));
  const std::vector<double> sums = reference::reduce(ReduceOp::sum, ops::abs(x), dim).to_vector<double>();
  return (n - 1) * std::ldexp(1.0, -24) * *std::max_element(sums.begin(), sums.end()) * 1.0001 + 1e-30;
}

TEST_P(CoreReduceSimd, RowsAndColumnsMatchReference) {
  Generator gen(27);
  // Rows of 16 … 70,001 (full vectors, a partial tail, four accumulators, the parallel visit); as
  // columns (dim 0 of a [R, n] tensor) each output row accumulates R slices of n ≥ 16.
  const std::vector<Shape> shapes = {{3, 16}, {5, 17}, {2, 33}, {7, 100}, {4, 1000}, {1, 70001}, {19, 21}};
  for (const Shape& s : shapes)
    for (int64_t d = 0; d < 2; ++d) {
      Tensor x = Tensor::uniform(s, gen, -1, 1, DType::f32);
      const std::string what = fmt::format("shape {} dim {}", shape_str(s), d);
      EXPECT_TRUE(close_to(ops::sum(x, {d}, true), reference::reduce(ReduceOp::sum, x, d), {0, sum_bound(x, d)}))
          << what;
      EXPECT_TRUE(equal_to(ops::amax(x, {d}, true), reference::reduce(ReduceOp::max, x, d))) << what;
      EXPECT_TRUE(equal_to(ops::amin(x, {d}, true), reference::reduce(ReduceOp::min, x, d))) << what;
    }
}

TEST_P(CoreReduceSimd, NaNAndInfinitiesAsTheScalarLoop) {
  // A NaN anywhere in a run makes max, min and sum NaN; ±inf is the max / min; the identity-filled
  // tail lanes never win. Positions: first, inside a full vector, in the last partial vector.
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t n : {16, 37, 131})
    for (int64_t at : {int64_t(0), n / 2, n - 1})
      for (float special : {nan, inf, -inf}) {
        std::vector<float> v(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) v[size_t(i)] = float(i % 7) - 3.0f;
        v[size_t(at)] = special;
        const Tensor row = Tensor::from_vector(v, {1, n}), column = row.reshape({n, 1}).expand({n, 20}).contiguous();
        const std::string what = fmt::format("n {} at {} value {}", n, at, special);
        for (ReduceOp op : {ReduceOp::sum, ReduceOp::max, ReduceOp::min}) {  // the vector run itself
          const float value = kernels::cpu::reduce_run_simd_f32(op, v.data(), n);
          const Tensor got = Tensor::from_vector(std::vector<float>{value}, {1, 1});
          EXPECT_TRUE(close_to(got, reference::reduce(op, row, 1), {0, 1e-5})) << what << " op " << int(op);
        }
        EXPECT_TRUE(equal_to(ops::amax(row, {1}, true), reference::reduce(ReduceOp::max, row, 1))) << what;
        EXPECT_TRUE(equal_to(ops::amin(row, {1}, true), reference::reduce(ReduceOp::min, row, 1))) << what;
        EXPECT_TRUE(close_to(ops::sum(row, {1}, true), reference::reduce(ReduceOp::sum, row, 1), {0, 1e-5})) << what;
        EXPECT_TRUE(equal_to(ops::amax(column, {0}, true), reference::reduce(ReduceOp::max, column, 0))) << what;
        EXPECT_TRUE(equal_to(ops::amin(column, {0}, true), reference::reduce(ReduceOp::min, column, 0))) << what;
        EXPECT_TRUE(close_to(ops::sum(column, {0}, true), reference::reduce(ReduceOp::sum, column, 0), {0, 1e-5}))
            << what;
      }
}

LINTRA_ON_EVERY_SIMD_TARGET(CoreReduceSimd);

}  // namespace
}  // namespace lintra
