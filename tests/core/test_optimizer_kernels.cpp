// test_optimizer_kernels.cpp — adam_update, sgd_update and sum_squares against
// core/reference/optimizer.cpp (float64 loops), in float32 and float64, at sizes on both sides of the
// OpenMP grain; sum_squares does not depend on the thread count.
#include <gtest/gtest.h>

#include <omp.h>

#include "core/ops.h"
#include "core/reference/reference.h"
#include "core/rng.h"
#include "tests/core/core_test_util.h"

namespace lintra {
namespace {

TEST(CoreOptimizerKernels, AdamUpdateMatchesReference) {
  Generator gen(1);
  for (DType dt : {DType::f32, DType::f64}) {
    for (bool rectified : {true, false}) {
      const int64_t n = 70001;
      Tensor p = Tensor::uniform({n}, gen, -1, 1, dt), g = Tensor::uniform({n}, gen, -1, 1, dt);
      Tensor m = Tensor::uniform({n}, gen, -0.1, 0.1, dt), v = Tensor::uniform({n}, gen, 0, 0.1, dt);
      const reference::AdamState ref =
          reference::adam_update({p.clone(), m.clone(), v.clone()}, g, 0.9, 0.98, 1e-8, 0.999, 1e-3, rectified);
      ops::adam_update_(p, g, m, v, {.beta1 = 0.9, .beta2 = 0.98, .eps = 1e-8, .decay = 0.999, .step = 1e-3,
                                     .rectified = rectified});
      const double tol = dt == DType::f32 ? 1e-6 : 1e-14;
      EXPECT_LE(ops::max_abs_diff(p.to(DType::f64), ref.p), tol) << dtype_name(dt) << " rectified=" << rectified;
      EXPECT_LE(ops::max_abs_diff(m.to(DType::f64), ref.m), tol);
      EXPECT_LE(ops::max_abs_diff(v.to(DType::f64), ref.v), tol);
    }
  }
}

TEST(CoreOptimizerKernels, SgdUpdateMatchesReference) {
  Generator gen(2);
  for (DType dt : {DType::f32, DType::f64}) {
    for (bool first : {true, false}) {
      Tensor p = Tensor::uniform({1000}, gen, -1, 1, dt), g = Tensor::uniform({1000}, gen, -1, 1, dt);
      Tensor buf = Tensor::uniform({1000}, gen, -1, 1, dt), none;
      const reference::SgdState ref = reference::sgd_update({p.clone(), buf.clone()}, g, 0.1, 0.9, 0.01, first);
      const reference::SgdState plain = reference::sgd_update({p.clone(), Tensor()}, g, 0.1, 0.9, 0.01, first);
      Tensor q = p.clone();
      ops::sgd_update_(p, g, buf, 0.1, 0.9, 0.01, first);
      ops::sgd_update_(q, g, none, 0.1, 0.9, 0.01, first);
      const double tol = dt == DType::f32 ? 1e-6 : 1e-14;
      EXPECT_LE(ops::max_abs_diff(p.to(DType::f64), ref.p), tol);
      EXPECT_LE(ops::max_abs_diff(buf.to(DType::f64), ref.buf), tol);
      EXPECT_LE(ops::max_abs_diff(q.to(DType::f64), plain.p), tol);
    }
  }
}

TEST(CoreOptimizerKernels, SumSquaresMatchesReferenceForAnyThreadCount) {
  Generator gen(3);
  const Tensor x = Tensor::uniform({300001}, gen, -1, 1, DType::f32);
  const double ref = reference::sum_squares(x);
  const double s = ops::sum_squares(x);
  EXPECT_NEAR(s, ref, 1e-9 * ref);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  EXPECT_EQ(ops::sum_squares(x), s);
  omp_set_num_threads(threads);
  EXPECT_EQ(ops::sum_squares(x.to(DType::f64)), ops::sum_squares(x.to(DType::f64)));
  EXPECT_EQ(ops::sum_squares(Tensor::zeros({0})), 0.0);
}

}  // namespace
}  // namespace lintra
