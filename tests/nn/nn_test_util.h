// nn_test_util.h — helpers shared by the nn tests: a gradient check over arbitrary leaves (module
// parameters as well as inputs), random Vars, and reading a lintra::Error's message.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "autograd/functional.h"
#include "autograd/gradcheck.h"
#include "core/error.h"
#include "core/ops.h"
#include "tests/test_util.h"

namespace lintra::testing {

// A float leaf of `shape` with values uniform in [lo, hi).
inline Var random_var(const Shape& shape, Generator& gen, DType dtype = DType::f64, bool requires_grad = true,
                      double lo = -1, double hi = 1) {
  return Var(Tensor::uniform(shape, gen, lo, hi, dtype), requires_grad);
}


// Central-difference check of d f() / d leaves, like lintra::gradcheck but for leaves that f reads
// from elsewhere (module parameters): f is re-evaluated after perturbing each leaf's float64 data in
// place. The analytic Jacobian comes from one backward per output element.
inline GradcheckResult gradcheck_leaves(const std::function<Var()>& f, const std::vector<Var>& leaves,
                                        const GradcheckOptions& opt = {}) {
  for (const Var& v : leaves) {
    EXPECT_EQ(v.dtype(), DType::f64);
    EXPECT_TRUE(v.data().is_contiguous());
    EXPECT_TRUE(v.requires_grad() && v.is_leaf());
  }
  Var out = f();
  const int64_t n_out = out.numel();
  std::vector<std::vector<double>> analytic(leaves.size());
  for (size_t i = 0; i < leaves.size(); ++i) analytic[i].assign(size_t(n_out * leaves[i].numel()), 0.0);
  for (int64_t k = 0; k < n_out && out.requires_grad(); ++k) {
    for (Var v : leaves) v.zero_grad();
    Tensor onehot = Tensor::zeros(out.shape(), DType::f64);
    onehot.data<double>()[k] = 1.0;
    out.backward(onehot, /*retain_graph=*/true);
    for (size_t i = 0; i < leaves.size(); ++i) {
      if (!leaves[i].grad().defined()) continue;
      std::vector<double> g = leaves[i].grad().to_vector<double>();
      for (size_t j = 0; j < g.size(); ++j) analytic[i][size_t(k) * g.size() + j] = g[j];
    }
  }
  out = Var();
  auto eval = [&] {
    NoGradGuard no_grad;
    return f().data().to_vector<double>();
  };
  GradcheckResult r;
  int reported = 0;
  for (size_t i = 0; i < leaves.size(); ++i) {
    double* x = leaves[i].data().data<double>();
    const int64_t n_in = leaves[i].numel();
    for (int64_t j = 0; j < n_in; ++j) {
      const double orig = x[j];
      x[j] = orig + opt.eps;
      std::vector<double> plus = eval();
      x[j] = orig - opt.eps;
      std::vector<double> minus = eval();
      x[j] = orig;
      for (int64_t k = 0; k < n_out; ++k) {
        const double num = (plus[size_t(k)] - minus[size_t(k)]) / (2 * opt.eps);
        const double ana = analytic[i][size_t(k * n_in + j)];
        const double err = std::abs(ana - num);
        r.entries += 1;
        r.max_abs_error = std::max(r.max_abs_error, std::isfinite(err) ? err : INFINITY);
        if (!(err <= opt.atol + opt.rtol * std::abs(num))) {
          r.ok = false;
          if (reported++ < opt.max_reported)
            r.message += fmt::format("leaf {} element {}, output {}: analytic {:.10g}, numeric {:.10g}\n", i, j, k,
                                     ana, num);
        }
      }
    }
  }
  if (r.ok) r.message = fmt::format("ok ({} entries, max abs error {:.3g})", r.entries, r.max_abs_error);
  for (Var v : leaves) v.zero_grad();
  return r;
}

}  // namespace lintra::testing
