// causal_linear_attention.cpp — "causal-linear": causal kernelised attention (PAPER.md §3 eqs 8–12).
//
//   φ = elu + 1
//   V'_i = φ(Q_i)ᵀ S_i / (φ(Q_i)·Z_i + eps),  S_i = Σ_{j≤i} φ(K_j) V_jᵀ,  Z_i = Σ_{j≤i} φ(K_j)
// eps = 1e-6 as the paper's code. The numerator goes through causal_numerator(); the normaliser
// is a cumsum over N, as in fast-transformers, and autograd differentiates it (Appendix A).
// Time O(B·H·N·E·M); memory O(B·H·N·(E + M)) with the fused numerator (O(B·H·N·E·M) composed).
// Masks: the causal mask is required (a full mask is refused: use "linear"); key lengths zero
// φ(K) of padded keys.
//
// Recurrent form (eqs 16–20): state S (B, H, E, M) and Z (B, H, E), constant in t:
//   S += φ(k_t) v_tᵀ,  Z += φ(k_t),  y_t = φ(q_t)ᵀ S / (φ(q_t)·Z + eps)      O(E·M) per head and step
#include "nn/attention/causal_linear_attention.h"

#include <fmt/format.h>

#include <cmath>

#include "autograd/functional.h"
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

class CausalLinearAttention : public InnerAttention {
 public:
  explicit CausalLinearAttention(double eps) : InnerAttention("causal-linear"), eps_(eps) {}

  MaskSupport mask_support() const override {
    return {.full = false, .causal = true, .key_lengths = true, .hint = "use 'linear' for non-causal attention"};
  }
  bool has_recurrent() const override { return true; }
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
    Var numerator = causal_numerator(phi_q, phi_k, v);                              // (B, H, N, M)
    Var z = cumsum(phi_k, 2);                                                       // (B, H, N, E)
    Var denominator = add(sum(mul(phi_q, z), {3}, /*keepdim=*/true), eps_);         // (B, H, N, 1)
    return div(numerator, denominator);
  }

  Var attend_step(const Var& q_t, const Var& k_t, const Var& v_t, RecurrentState& state) override {
    const int64_t B = q_t.size(0), H = q_t.size(1), E = q_t.size(2), M = v_t.size(2);
    if (state.steps == 0) {
      state.values["S"] = Var(Tensor::zeros({B, H, E, M}, q_t.dtype()));
      state.values["Z"] = Var(Tensor::zeros({B, H, E}, q_t.dtype()));
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
