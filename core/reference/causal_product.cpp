// reference/causal_product.cpp — the causal linear product as its masked quadratic form, by plain
// loops in float64: scores a_ij = q_i·k_j for j ≤ i (the N×N matrix Q·Kᵀ ∘ tril, one row at a
// time), out_i = Σ_{j≤i} a_ij v_j. The gradients differentiate that form directly, with
// p_ij = g_i·v_j (the scores of the output gradient against the values):
//   gq_i = Σ_{j≤i} p_ij k_j,   gk_j = Σ_{i≥j} p_ij q_i,   gv_j = Σ_{i≥j} a_ij g_i.
// O(N²·(E + M)) per (b, h): a test oracle only, independent of the chunked kernel's algebra.
#include <vector>

#include "core/reference/reference.h"

namespace lintra::reference {

Tensor causal_product(const Tensor& q, const Tensor& k, const Tensor& v) {
  const int64_t B = q.size(0), H = q.size(1), N = q.size(2), E = q.size(3), M = v.size(3);
  const std::vector<double> Q = q.to_vector<double>(), K = k.to_vector<double>(), V = v.to_vector<double>();
  std::vector<double> out(size_t(B * H * N * M), 0.0);
  for (int64_t bh = 0; bh < B * H; ++bh) {
    const double* qb = Q.data() + bh * N * E;
    const double* kb = K.data() + bh * N * E;
    const double* vb = V.data() + bh * N * M;
    double* ob = out.data() + bh * N * M;
    for (int64_t i = 0; i < N; ++i) {
      for (int64_t j = 0; j <= i; ++j) {
        double a = 0;
        for (int64_t e = 0; e < E; ++e) a += qb[i * E + e] * kb[j * E + e];
        for (int64_t m = 0; m < M; ++m) ob[i * M + m] += a * vb[j * M + m];
      }
    }
  }
  return Tensor::from_vector(out, {B, H, N, M});
}

CausalProductGrads causal_product_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& g) {
  const int64_t B = q.size(0), H = q.size(1), N = q.size(2), E = q.size(3), M = v.size(3);
  const std::vector<double> Q = q.to_vector<double>(), K = k.to_vector<double>(), V = v.to_vector<double>(), G = g.to_vector<double>();
  std::vector<double> gq(size_t(B * H * N * E), 0.0), gk(gq.size(), 0.0), gv(size_t(B * H * N * M), 0.0);
  for (int64_t bh = 0; bh < B * H; ++bh) {
    const int64_t oe = bh * N * E, om = bh * N * M;
    for (int64_t i = 0; i < N; ++i) {
      for (int64_t j = 0; j <= i; ++j) {
        double a = 0, p = 0;
        for (int64_t e = 0; e < E; ++e) a += Q[size_t(oe + i * E + e)] * K[size_t(oe + j * E + e)];
        for (int64_t m = 0; m < M; ++m) p += G[size_t(om + i * M + m)] * V[size_t(om + j * M + m)];
        for (int64_t e = 0; e < E; ++e) {
          gq[size_t(oe + i * E + e)] += p * K[size_t(oe + j * E + e)];
          gk[size_t(oe + j * E + e)] += p * Q[size_t(oe + i * E + e)];
        }
        for (int64_t m = 0; m < M; ++m) gv[size_t(om + j * M + m)] += a * G[size_t(om + i * M + m)];
      }
    }
  }
  return {Tensor::from_vector(gq, {B, H, N, E}), Tensor::from_vector(gk, {B, H, N, E}), Tensor::from_vector(gv, {B, H, N, M})};
}

}  // namespace lintra::reference
