// causal_linear_attention.cpp — "causal-linear": causal kernelised attention (PAPER.md §3 eqs 8–12).
//
//   φ = elu + 1
//   V'_i = φ(Q_i)ᵀ S_i / (φ(Q_i)·Z_i + eps),  S_i = Σ_{j≤i} φ(K_j) V_jᵀ,  Z_i = Σ_{j≤i} φ(K_j)
// eps = 1e-6 as the paper's code. The numerator goes through causal_numerator(); the normaliser
// through causal_linear_normalise(), one sweep per head keeping Σ_{j≤i}φ(K_j) (the cumsum of
// fast-transformers, with its backward written out: core/cpu/causal_normalise.cpp).
// Time O(B·H·N·E·M); memory O(B·H·N·(E + M)) with the fused numerator (O(B·H·N·E·M) composed).
// Masks: the causal mask is required (a full mask is refused: use "linear"); key lengths zero
// φ(K) of padded keys.
//
// Recurrent form (eqs 16–20): state S (B, H, E, M) and Z (B, H, E), constant in t:
//   S += φ(k_t) v_tᵀ,  Z += φ(k_t),  y_t = φ(q_t)ᵀ S / (φ(q_t)·Z + eps)      O(E·M) per head and step
// The same on raw float32 buffers for generation (make_raw_step, raw_recurrent_step.h): S and Z
// updated in place, φ applied on the fly, heads split across the caller's threads.
#include "nn/attention/causal_linear_attention.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "autograd/functional.h"
#include "core/host_simd.h"
#include "core/unary_ops.h"
#include "nn/attention/feature_maps.h"
#include "nn/attention/registry.h"

namespace lintra::nn {

Var causal_numerator_composed(const Var& phi_q, const Var& phi_k, const Var& v) {
  Var outer = mul(unsqueeze(phi_k, 4), unsqueeze(v, 3));  // (B, H, N, E, M): φK_j ⊗ V_j
  Var state = cumsum(outer, 2);                           // S_i
  return squeeze(matmul(unsqueeze(phi_q, 3), state), 3);  // (B, H, N, 1, E)·(B, H, N, E, M) → (B, H, N, M)
}

// The numerator through the fused kernel (core/cpu/causal_product.cpp: chunked, constant-memory
// backward); causal_numerator_composed() stays as the test oracle.
Var causal_numerator(const Var& phi_q, const Var& phi_k, const Var& v) { return causal_linear_product(phi_q, phi_k, v); }

namespace {

// φ(x) = elu(x) + 1 in float32: the formula elu_feature_map() runs (op::EluFeature).
inline float phi(float x) { return op::EluFeature::fast(x); }

// The recurrent form on raw buffers: S (B, H, E, M) and Z (B, H, E) per sequence and head.
class CausalLinearRawStep : public RawRecurrentStep {
 public:
  CausalLinearRawStep(const RawStepShape& s, double eps)
      : H_(s.heads), E_(s.query_dim), M_(s.value_dim), eps_(float(eps)),
        S_(size_t(s.batch * s.heads * s.query_dim * s.value_dim)), Z_(size_t(s.batch * s.heads * s.query_dim)),
        batch_(s.batch) {}

  void step(int64_t t, const RawStepIO& io, int64_t h0, int64_t h1) override {
    const int64_t E = E_, M = M_;
    thread_local std::vector<float> phi_buf;  // threads step their own heads at once
    if (phi_buf.size() < size_t(2 * E)) phi_buf.resize(size_t(2 * E));
    for (int64_t b = 0; b < batch_; ++b)
      for (int64_t h = h0; h < h1; ++h) {
        const float* q = io.q + b * io.in_stride + h * E;
        const float* k = io.k + b * io.in_stride + h * E;
        const float* v = io.v + b * io.in_stride + h * M;
        float* y = io.y + b * io.out_stride + h * M;
        float* S = S_.data() + (b * H_ + h) * E * M;
        float* Z = Z_.data() + (b * H_ + h) * E;
        if (t == 0) {
          std::fill(S, S + E * M, 0.0f);
          std::fill(Z, Z + E, 0.0f);
        }
        float* pk = phi_buf.data();  // φ(k) and φ(q), this thread's
        float* pq = pk + E;
        for (int64_t e = 0; e < E; ++e) {
          pk[e] = phi(k[e]);
          pq[e] = phi(q[e]);
          Z[e] += pk[e];  // Z += φ(k)
        }
        simd::outer_update_read(S, pk, v, pq, y, E, M);  // S += φ(k) vᵀ, y = Sᵀ φ(q)
        float den = 0;
        for (int64_t e = 0; e < E; ++e) den += pq[e] * Z[e];  // y /= φ(q)·Z + eps
        const float inv = 1.0f / (den + eps_);
        for (int64_t m = 0; m < M; ++m) y[m] *= inv;
      }
  }

 private:
  int64_t H_, E_, M_;
  float eps_;
  std::vector<float> S_, Z_;
  int64_t batch_;
};

class CausalLinearAttention : public InnerAttention {
 public:
  explicit CausalLinearAttention(double eps) : InnerAttention("causal-linear"), eps_(eps) {}

  MaskSupport mask_support() const override {
    return {.full = false, .causal = true, .key_lengths = true, .hint = "use 'linear' for non-causal attention"};
  }
  bool has_recurrent() const override { return true; }
  std::unique_ptr<RawRecurrentStep> make_raw_step(const RawStepShape& shape) const override {
    return std::make_unique<CausalLinearRawStep>(shape, eps_);
  }
  std::string extra_repr() const override { return fmt::format("feature_map=elu+1, eps={:g}", eps_); }

 protected:
  Var attend(const Var& q, const Var& k, const Var& v, const AttentionMasks& masks) override {
    Var phi_q = elu_feature_map(q);  // (B, H, N, E)
    Var phi_k = elu_feature_map(k);  // (B, H, N, E)
    if (masks.has_key_lengths()) {
      const int64_t B = k.size(0), S = k.size(2);
      Tensor keep = LengthMask(masks.key_lengths, S).float_matrix(k.dtype()).view({B, 1, S, 1});
      phi_k = mul(phi_k, Var(keep));
    }
    Var numerator = causal_numerator(phi_q, phi_k, v);            // (B, H, N, M)
    return causal_linear_normalise(phi_q, phi_k, numerator, eps_);  // ÷ (φ(Q_i)·Σ_{j≤i}φ(K_j) + eps)
  }

  Var attend_step(const Var& q_t, const Var& k_t, const Var& v_t, RecurrentState& state) override {
    const int64_t B = q_t.size(0), H = q_t.size(1), E = q_t.size(2), M = v_t.size(2);
    if (state.steps == 0) {
      const Device dev = q_t.data().device();
      state.values["S"] = Var(Tensor::zeros({B, H, E, M}, q_t.dtype(), dev));
      state.values["Z"] = Var(Tensor::zeros({B, H, E}, q_t.dtype(), dev));
    }
    const Var& s_prev = state.at("S");
    LINTRA_CHECK(s_prev.shape() == Shape({B, H, E, M}),
                 "attention 'causal-linear': step() inputs need a state S of shape {}, the state has {}",
                 shape_str({B, H, E, M}), shape_str(s_prev.shape()));
    Var phi_q = elu_feature_map(q_t);  // (B, H, E)
    Var phi_k = elu_feature_map(k_t);  // (B, H, E)
    Var s = add(s_prev, mul(unsqueeze(phi_k, 3), unsqueeze(v_t, 2)));  // S += φ(k) vᵀ
    Var z = add(state.at("Z"), phi_k);                                  // Z += φ(k)
    state.values["S"] = s;
    state.values["Z"] = z;
    Var numerator = squeeze(matmul(unsqueeze(phi_q, 2), s), 2);          // (B, H, M)
    Var denominator = add(sum(mul(phi_q, z), {2}, /*keepdim=*/true), eps_);  // (B, H, 1)
    return div(numerator, denominator);
  }

 private:
  double eps_;
};

}  // namespace

void register_causal_linear_attention(AttentionRegistry& registry) {
  registry.add(
      "causal-linear", [](const AttentionParams& p, const AttentionContext&) {
        return std::make_shared<CausalLinearAttention>(p.get_double("eps"));
      },
      {{"eps", ParamSpec::real(1e-6, 0, INFINITY, "added to the normaliser φ(Q_i)·Σ_{j≤i}φ(K_j)")}},
      "causal linear attention with φ = elu + 1; masks: causal (required), key lengths; recurrent: state S, Z");
}

}  // namespace lintra::nn
