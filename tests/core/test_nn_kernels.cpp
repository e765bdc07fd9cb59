// test_nn_kernels.cpp — invariant: the fused nn kernels — softmax / log_softmax (forward and
// backward) and layer norm (forward: y, mean, rstd; backward) — equal slow float64 oracles on
// odd-sized inputs of any layout (including contiguous tensors whose size-1 dims carry arbitrary
// strides), over the last dim and over other dims. Both kernels are dispatched through Highway: every
// case runs once per SIMD target this CPU can run (tests/core/simd_targets.h), CoreNnKernels.<Case>/AVX2,
// …/SSE4, …; rows of 67 and 300 take full vectors, the unrolled loops and a partial tail, and 128 × 300
// is above the kernels' parallel grain.
//
// Tolerances (|got − want| ≤ atol + rtol·|want|):
//   softmax float32: rtol 1e-5, atol 1e-7 — vectorised exp (≤ 1 ulp) plus a sum of ≤ 300 terms in 4·L partial sums and a
//     division: ≲ 20 ulp of 2^-24 relative to each output; atol for the tiniest probabilities.
//   log_softmax float32: atol 1e-5 — x − m − log Σ: absolute error of a few ulp of values up to ~5.
//   layer norm float32: rtol 1e-5, atol 1e-5 — statistics are accumulated in double, then
//     (x − μ)·rstd·γ + β in float32: a few ulp of outputs of magnitude ≲ 5.
//   backward float32: atol 1e-5 — sums of ≤ 17 products of O(1) terms.
//   float64: rtol 1e-12, atol 1e-12 — the same formulas, differing by reassociation only.
#include <gtest/gtest.h>

#include <cmath>

#include "core/ops.h"
#include "core/reference/reference.h"
#include "tests/core/core_test_util.h"
#include "tests/core/simd_targets.h"

namespace lintra {
namespace {

using kernels::ReduceOp;
using testing::close_to;
using testing::describe_case;
using testing::kAllLayouts;
using testing::Layout;
using testing::make_input;
using testing::Tol;

class CoreNnKernels : public testing::SimdTargetTest {};

const std::vector<Shape> kShapes = {{3, 5, 7}, {1, 13}, {17}, {2, 3, 67}, {128, 300}};  // the last: OpenMP
const std::vector<DType> kFloat = {DType::f32, DType::f64};

Tol softmax_tol(DType dt, bool log) {
  if (dt == DType::f64) return {1e-12, 1e-12};
  return log ? Tol{1e-5, 1e-5} : Tol{1e-5, 1e-7};
}

// Reference softmax over any dim: move it last, apply the oracle, move it back.
Tensor ref_softmax(const Tensor& x, int64_t d, bool log) {
  return reference::softmax(x.transpose(d, -1), log).transpose(d, -1);
}

TEST_P(CoreNnKernels, SoftmaxAndLogSoftmaxOverEveryDim) {
  Generator gen(41);
  for (DType dt : kFloat)
    for (const Shape& s : kShapes)
      for (Layout l : kAllLayouts)
        for (int64_t d = 0; d < int64_t(s.size()); ++d)
          for (bool log : {false, true}) {
            Tensor x = make_input(s, dt, l, gen, -4, 4);
            Tensor got = log ? ops::log_softmax(x, d) : ops::softmax(x, d);
            EXPECT_TRUE(close_to(got, ref_softmax(x, d, log), softmax_tol(dt, log)))
                << (log ? "log_softmax " : "softmax ") << describe_case(s, dt, l) << ", dim " << d;
          }
}

TEST_P(CoreNnKernels, SoftmaxOfContiguousTensorWithOddSizeOneStride) {
  // permute of (1, 4, 5) to (4, 1, 5) is contiguous (strides 5, 20, 1): the stride of the size-1
  // dim is not the row stride, and a kernel that reads it as one walks off the rows.
  Generator gen(42);
  for (DType dt : kFloat) {
    Tensor x = Tensor::uniform({1, 4, 5}, gen, -3, 3, dt).permute({1, 0, 2});
    ASSERT_TRUE(x.is_contiguous());
    for (bool log : {false, true}) {
      Tensor got = log ? ops::log_softmax(x, -1) : ops::softmax(x, -1);
      EXPECT_TRUE(close_to(got, reference::softmax(x, log), softmax_tol(dt, log))) << dt;
    }
  }
}

TEST_P(CoreNnKernels, SoftmaxIsShiftInvariantForLargeLogits) {
  // exp(1000) overflows; the max-subtraction must keep the result finite and exact.
  Tensor x = Tensor::from_vector(std::vector<double>{1000, 1001, 1002}, {1, 3});
  Tensor want = reference::softmax(ops::add(x, -1000.0), false);
  EXPECT_TRUE(close_to(ops::softmax(x, -1), want, {1e-12, 1e-15}));
  EXPECT_TRUE(close_to(ops::log_softmax(x.to(DType::f32), -1), reference::softmax(ops::add(x, -1000.0), true),
                       {1e-5, 1e-5}));
}

// dx of softmax (log: of log_softmax) given y and dy, by plain loops over the last dim in double.
Tensor ref_softmax_backward(const Tensor& y, const Tensor& dy, bool log) {
  const int64_t D = y.shape().back(), R = y.numel() / D;
  std::vector<double> yv = y.to_vector<double>(), gv = dy.to_vector<double>(), out(yv.size());
  for (int64_t r = 0; r < R; ++r) {
    double s = 0;
    for (int64_t i = 0; i < D; ++i) s += log ? gv[size_t(r * D + i)] : gv[size_t(r * D + i)] * yv[size_t(r * D + i)];
    for (int64_t i = 0; i < D; ++i) {
      size_t k = size_t(r * D + i);
      out[k] = log ? gv[k] - std::exp(yv[k]) * s : yv[k] * (gv[k] - s);
    }
  }
  return Tensor::from_vector(out, y.shape());
}

TEST_P(CoreNnKernels, SoftmaxBackwardMatchesReference) {
  Generator gen(43);
  for (DType dt : kFloat)
    for (const Shape& s : kShapes)
      for (Layout l : kAllLayouts)
        for (bool log : {false, true}) {
          Tensor x = make_input(s, dt, l, gen, -3, 3);
          Tensor dy = make_input(s, dt, l, gen, -1, 1);
          Tensor y = log ? ops::log_softmax(x, -1) : ops::softmax(x, -1);
          Tensor got = ops::softmax_backward(y, dy, -1, log);
          Tol tol = dt == DType::f32 ? Tol{1e-5, 1e-5} : Tol{1e-12, 1e-12};
          EXPECT_TRUE(close_to(got, ref_softmax_backward(y, dy, log), tol)) << describe_case(s, dt, l);
          // Over dim 0 (a transposed problem) as well.
          Tensor y0 = log ? ops::log_softmax(x, 0) : ops::softmax(x, 0);
          Tensor got0 = ops::softmax_backward(y0, dy, 0, log);
          Tensor want0 = ref_softmax_backward(y0.transpose(0, -1), dy.transpose(0, -1), log).transpose(0, -1);
          EXPECT_TRUE(close_to(got0, want0, tol)) << describe_case(s, dt, l) << ", dim 0";
        }
}

TEST_P(CoreNnKernels, LayerNormForwardMatchesReference) {
  Generator gen(44);
  for (DType dt : kFloat)
    for (const Shape& s : kShapes)
      for (Layout l : kAllLayouts) {
        const int64_t D = s.back();
        Tensor x = make_input(s, dt, l, gen, -2, 3);
        Tensor gamma = make_input({D}, dt, Layout::strided, gen, 0.5, 1.5);
        Tensor beta = make_input({D}, dt, Layout::contiguous, gen, -0.5, 0.5);
        ops::LayerNormResult r = ops::layer_norm(x, gamma, beta, 1e-5);
        Tol tol = dt == DType::f32 ? Tol{1e-5, 1e-5} : Tol{1e-12, 1e-12};
        std::string what = describe_case(s, dt, l);
        EXPECT_TRUE(close_to(r.y, reference::layer_norm(x, gamma, beta, 1e-5), tol)) << what;
        // mean and rstd as the oracle's ingredients.
        Tensor mean = ops::div(reference::reduce(ReduceOp::sum, x, int64_t(s.size()) - 1), double(D));
        Tensor centered = reference::binary(kernels::binary_op<op::Sub>, x, mean);
        Tensor var = ops::div(reference::reduce(ReduceOp::sum, ops::square(centered), int64_t(s.size()) - 1), double(D));
        Tensor rstd = ops::rsqrt(ops::add(var, 1e-5));
        Shape rows(s.begin(), s.end() - 1);
        EXPECT_TRUE(close_to(r.mean, mean.reshape(rows), tol)) << what;
        EXPECT_TRUE(close_to(r.rstd, rstd.reshape(rows), tol)) << what;
      }
}

TEST_P(CoreNnKernels, LayerNormBackwardMatchesReference) {
  // With x̂ = (x − μ)·rstd and g = dy·γ: dx = rstd·(g − mean(g) − x̂·mean(g·x̂)), dγ = Σ dy·x̂, dβ = Σ dy.
  Generator gen(45);
  for (DType dt : kFloat)
    for (const Shape& s : {Shape{3, 5, 7}, Shape{64, 300}})  // the second is above the parallel grain
      for (Layout l : {Layout::contiguous, Layout::permuted}) {
        const int64_t D = s.back();
        Tensor x = make_input(s, dt, l, gen, -2, 3);
        Tensor dy = make_input(s, dt, Layout::strided, gen, -1, 1);
        Tensor gamma = Tensor::uniform({D}, gen, 0.5, 1.5, dt);
        Tensor beta = Tensor::uniform({D}, gen, -0.5, 0.5, dt);
        ops::LayerNormResult fwd = ops::layer_norm(x, gamma, beta, 1e-5);
        ops::LayerNormGrads got = ops::layer_norm_backward(dy, x, fwd, gamma);

        const int64_t R = x.numel() / D;
        std::vector<double> xv = x.to_vector<double>(), gv = dy.to_vector<double>(), gm = gamma.to_vector<double>();
        std::vector<double> dx(xv.size()), dg(size_t(D), 0), db(size_t(D), 0);
        for (int64_t r = 0; r < R; ++r) {
          const double* xr = &xv[size_t(r * D)];
          const double* g = &gv[size_t(r * D)];
          double mu = 0, var = 0;
          for (int64_t i = 0; i < D; ++i) mu += xr[i];
          mu /= double(D);
          for (int64_t i = 0; i < D; ++i) var += (xr[i] - mu) * (xr[i] - mu);
          const double rs = 1 / std::sqrt(var / double(D) + 1e-5);
          double mg = 0, mgx = 0;
          for (int64_t i = 0; i < D; ++i) {
            mg += g[i] * gm[size_t(i)] / double(D);
            mgx += g[i] * gm[size_t(i)] * (xr[i] - mu) * rs / double(D);
            dg[size_t(i)] += g[i] * (xr[i] - mu) * rs;
            db[size_t(i)] += g[i];
          }
          for (int64_t i = 0; i < D; ++i)
            dx[size_t(r * D + i)] = rs * (g[i] * gm[size_t(i)] - mg - (xr[i] - mu) * rs * mgx);
        }
        // dx uses row means over D ≤ 300 terms, dγ/dβ sums over R ≤ 64 rows, all of magnitude ≲ 3:
        // recursive-summation bounds up to 300·6e-8·3 ≈ 5e-5 in float32 (→ atol 5e-5, rtol 1e-4) and
        // 300·1.1e-16·3 ≈ 1e-13 in float64 (→ atol 1e-11, rtol 1e-10).
        Tol tol = dt == DType::f32 ? Tol{1e-4, 5e-5} : Tol{1e-10, 1e-11};
        std::string what = describe_case(s, dt, l);
        EXPECT_TRUE(close_to(got.dx, Tensor::from_vector(dx, s), tol)) << what;
        EXPECT_TRUE(close_to(got.dgamma, Tensor::from_vector(dg, {D}), tol)) << what;
        EXPECT_TRUE(close_to(got.dbeta, Tensor::from_vector(db, {D}), tol)) << what;
      }
}

LINTRA_ON_EVERY_SIMD_TARGET(CoreNnKernels);

}  // namespace
}  // namespace lintra
