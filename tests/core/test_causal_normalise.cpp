// test_causal_normalise.cpp — invariant: causal linear attention's normaliser kernels
// (core/cpu/causal_normalise.cpp) equal plain float64 loops over its formulas,
//   den_i = q_i·Σ_{j≤i} k_j + eps, out_i = num_i / den_i,
//   c_i = −(g_i·out_i)/den_i, gnum_i = g_i/den_i, gq_i = c_i Σ_{j≤i} k_j, gk_j = Σ_{i≥j} c_i q_i,
// on every SIMD target, in float32 and float64, for E and M on both sides of the vector widths, q and k
// as head-split views (a row stride) and as copies without a unit last stride, and N = 1 and 0.
//
// Tolerance: each value is a sum of at most N·E + M products (positive q, k as φ gives them; signed
// num, g), reordered by the kernel: |Δ| ≤ n·u·Σ|terms| with n ≤ 1,200 here, checked as rtol of the
// value plus 1% of the tensor's largest (the signed sums cancel): 1e-4 (float32), 1e-12 (float64).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/kernels.h"
#include "core/rng.h"
#include "core/tensor.h"
#include "tests/core/core_test_util.h"
#include "tests/core/simd_targets.h"

namespace lintra {
namespace {

struct Grads {
  std::vector<double> gnum, gq, gk;
};

// The oracle: float64 loops over contiguous (B·H, N, ·) copies.
struct Oracle {
  std::vector<double> out, den;
  Grads grads;
};

Oracle oracle(const Tensor& q, const Tensor& k, const Tensor& num, const Tensor& g, double eps) {
  const int64_t BH = q.size(0) * q.size(1), N = q.size(2), E = q.size(3), M = num.size(3);
  const std::vector<double> qv = q.contiguous().to_vector<double>(), kv = k.contiguous().to_vector<double>(),
                            nv = num.contiguous().to_vector<double>(), gv = g.contiguous().to_vector<double>();
  Oracle o{std::vector<double>(size_t(BH * N * M)), std::vector<double>(size_t(BH * N)),
           {std::vector<double>(size_t(BH * N * M)), std::vector<double>(size_t(BH * N * E)),
            std::vector<double>(size_t(BH * N * E))}};
  for (int64_t h = 0; h < BH; ++h) {
    std::vector<double> z(size_t(E), 0.0), c(size_t(N), 0.0);
    for (int64_t t = 0; t < N; ++t) {
      double den = eps;
      for (int64_t e = 0; e < E; ++e) {
        z[size_t(e)] += kv[size_t((h * N + t) * E + e)];
        den += qv[size_t((h * N + t) * E + e)] * z[size_t(e)];
      }
      o.den[size_t(h * N + t)] = den;
      double dot = 0;
      for (int64_t m = 0; m < M; ++m) {
        const size_t i = size_t((h * N + t) * M + m);
        o.out[i] = nv[i] / den;
        o.grads.gnum[i] = gv[i] / den;
        dot += gv[i] * o.out[i];
      }
      c[size_t(t)] = -dot / den;
      for (int64_t e = 0; e < E; ++e) o.grads.gq[size_t((h * N + t) * E + e)] = c[size_t(t)] * z[size_t(e)];
    }
    std::vector<double> r(size_t(E), 0.0);
    for (int64_t t = N - 1; t >= 0; --t)
      for (int64_t e = 0; e < E; ++e) {
        r[size_t(e)] += c[size_t(t)] * qv[size_t((h * N + t) * E + e)];
        o.grads.gk[size_t((h * N + t) * E + e)] = r[size_t(e)];
      }
  }
  return o;
}

::testing::AssertionResult close(const Tensor& got, const std::vector<double>& want, double rtol, const char* what) {
  const std::vector<double> a = got.contiguous().to_vector<double>();
  if (a.size() != want.size()) return ::testing::AssertionFailure() << what << ": " << a.size() << " values";
  double scale = 0;
  for (double w : want) scale = std::max(scale, std::abs(w));
  for (size_t i = 0; i < a.size(); ++i)
    if (!(std::abs(a[i] - want[i]) <= rtol * (std::abs(want[i]) + scale * 1e-2)))
      return ::testing::AssertionFailure() << what << "[" << i << "]: got " << a[i] << ", expected " << want[i];
  return ::testing::AssertionSuccess();
}

// q, k as (B, N, H, E) projections viewed as (B, H, N, E) (the attention's layout), or with no unit
// last stride (a transposed copy viewed back).
Tensor heads(const Tensor& dense_bnhe, bool unit_last) {
  Tensor v = dense_bnhe.permute({0, 2, 1, 3});
  if (unit_last) return v;
  return v.transpose(2, 3).contiguous().transpose(2, 3);
}

class CoreCausalNormalise : public testing::SimdTargetTest {};
LINTRA_ON_EVERY_SIMD_TARGET(CoreCausalNormalise);

TEST_P(CoreCausalNormalise, MatchesTheFloat64Loops) {
  Generator gen(91);
  struct Case {
    int64_t B, H, N, E, M;
  };
  for (DType dt : {DType::f32, DType::f64})
    for (const Case& c : {Case{2, 3, 37, 32, 32}, Case{1, 2, 20, 5, 7}, Case{2, 1, 9, 17, 33}, Case{1, 1, 1, 3, 4},
                          Case{1, 2, 0, 4, 4}})
      for (bool unit_last : {true, false}) {
        const std::string what = fmt::format("{} B={} H={} N={} E={} M={} unit last stride {}", dtype_name(dt), c.B,
                                             c.H, c.N, c.E, c.M, unit_last);
        SCOPED_TRACE(what);
        const Tensor q = heads(Tensor::uniform({c.B, c.N, c.H, c.E}, gen, 0.05, 1, dt), unit_last);
        const Tensor k = heads(Tensor::uniform({c.B, c.N, c.H, c.E}, gen, 0.05, 1, dt), unit_last);
        const Tensor num = Tensor::uniform({c.B, c.H, c.N, c.M}, gen, -1, 1, dt);
        const Tensor g = Tensor::uniform({c.B, c.H, c.N, c.M}, gen, -1, 1, dt);
        const double eps = 1e-6, rtol = dt == DType::f32 ? 1e-4 : 1e-12;
        Tensor out = Tensor::empty(num.shape(), dt), den = Tensor::empty({c.B, c.H, c.N}, dt);
        kernels::on(out).causal_normalise_forward(q, k, num, eps, out, den);
        Tensor gnum = Tensor::empty(num.shape(), dt), gq = Tensor::empty(q.shape(), dt), gk = Tensor::empty(k.shape(), dt);
        kernels::on(gq).causal_normalise_backward(q, k, out, den, g, gnum, gq, gk);
        const Oracle want = oracle(q, k, num, g, eps);
        EXPECT_TRUE(close(out, want.out, rtol, "out"));
        EXPECT_TRUE(close(den, want.den, rtol, "den"));
        EXPECT_TRUE(close(gnum, want.grads.gnum, rtol, "gnum"));
        EXPECT_TRUE(close(gq, want.grads.gq, rtol, "gq"));
        EXPECT_TRUE(close(gk, want.grads.gk, rtol, "gk"));
      }
}

}  // namespace
}  // namespace lintra
