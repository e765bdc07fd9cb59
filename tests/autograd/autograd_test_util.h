// autograd_test_util.h — helpers shared by the autograd tests: float64 inputs chosen inside an op's
// domain and away from its kinks (where central differences are meaningless), and an assertion
// wrapper around gradcheck (autograd/gradcheck.h) that prints its report on failure.
//
// gradcheck runs with its defaults everywhere (eps 1e-6, atol 1e-6, rtol 1e-4): with float64 the
// central difference has truncation error O(ε²·f''') ≈ 1e-12 and rounding error O(1e-16·|f|/ε) ≈
// 1e-10 for the O(1) values used here, so a correct backward passes with a wide margin while a
// wrong formula (errors of order 1e-1 or more) cannot.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <cmath>
#include <vector>

#include "core/error.h"
#include "tests/test_util.h"
#include "core/ops.h"

#include "autograd/functional.h"
#include "autograd/gradcheck.h"
#include "core/rng.h"

namespace lintra::testing {

// Uniform float64 values in [lo, hi).
inline Tensor rnd(const Shape& shape, Generator& gen, double lo = -1, double hi = 1) {
  return Tensor::uniform(shape, gen, lo, hi, DType::f64);
}

// Uniform float64 values in [lo, hi) that keep at least `margin` from every point in `kinks`
// (a value closer than that moves to k ± margin, on its own side; kinks must be > 2·margin apart).
inline Tensor rnd_away(const Shape& shape, Generator& gen, const std::vector<double>& kinks, double lo = -2,
                       double hi = 2, double margin = 0.05) {
  std::vector<double> v = rnd(shape, gen, lo, hi).to_vector<double>();
  for (double& x : v)
    for (double k : kinks)
      if (std::abs(x - k) < margin) x = x >= k ? k + margin : k - margin;
  return Tensor::from_vector(v, shape);
}

// Distinct values, pairwise at least 0.06 apart (no ties for max/min/sort): a random permutation of
// 0.1·k, centred, plus noise below 0.02.
inline Tensor rnd_distinct(const Shape& shape, Generator& gen) {
  const int64_t n = numel_of(shape);
  std::vector<int64_t> p = gen.randperm(n);
  std::vector<double> noise = rnd({n}, gen, 0, 0.02).to_vector<double>();
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = 0.1 * double(p[size_t(i)] - n / 2) + noise[size_t(i)];
  return Tensor::from_vector(v, shape);
}

// gradcheck as a gtest assertion: fails with gradcheck's report (the worst entries), and also when
// nothing was compared (an input that does not reach the output would make the check vacuous).
inline ::testing::AssertionResult gradcheck_ok(const GradcheckFn& f, const std::vector<Tensor>& inputs,
                                               const GradcheckOptions& options = {}) {
  GradcheckResult r = gradcheck(f, inputs, options);
  if (!r.ok) return ::testing::AssertionFailure() << r.message;
  if (r.entries == 0) return ::testing::AssertionFailure() << "no Jacobian entries compared";
  return ::testing::AssertionSuccess();
}

// A random float64 weighting of y's elements summed to a scalar: its gradient is a generic vector
// (not all ones), so backward formulas are exercised for arbitrary upstream gradients.
inline Var weighted_sum(const Var& y, const Tensor& w) { return sum(mul(y, Var(w))); }

// Fused-against-composed comparisons: tolerances per dtype and an assertion naming the largest gap.
struct Tol {
  double rtol, atol;
};
inline Tol tol_for(DType dt) { return dt == DType::f64 ? Tol{1e-10, 1e-12} : Tol{1e-4, 2e-5}; }

inline ::testing::AssertionResult close(const Tensor& a, const Tensor& b, Tol t) {
  if (a.shape() != b.shape()) return ::testing::AssertionFailure() << "shapes differ";
  if (ops::allclose(a, b, t.rtol, t.atol)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "max abs diff " << ops::max_abs_diff(a, b);
}


}  // namespace lintra::testing
