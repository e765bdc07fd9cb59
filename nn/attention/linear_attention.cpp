// linear_attention.cpp — "linear": non-causal kernelised attention (PAPER.md §3 eqs 4–6).
//
//   φ = elu + 1;  KV = Σ_s φ(K_s) V_sᵀ (B, H, E, M);  k̂ = Σ_s φ(K_s) (B, H, E)
//   V'_i = φ(Q_i)ᵀ KV / (φ(Q_i)·k̂ + eps),  eps = 1e-6 as the paper's code
// Time O(B·H·(N + S)·E·M), memory O(B·H·(N·M + E·M)): never the N×S matrix.
// Masks: full and key lengths (φ(K) of padded keys is zeroed, so they add nothing to KV or k̂).
// A causal mask is refused: use "causal-linear". No recurrent form (every query sees every key).
#include <fmt/format.h>

#include <cmath>

#include "autograd/functional.h"
#include "nn/attention/feature_maps.h"
#include "nn/attention/registry.h"

namespace lintra::nn {

namespace {

class LinearAttention : public InnerAttention {
 public:
  explicit LinearAttention(double eps) : InnerAttention("linear"), eps_(eps) {}

  MaskSupport mask_support() const override {
    return {.full = true, .causal = false, .key_lengths = true, .hint = "use 'causal-linear' for causal attention"};
  }
  std::string extra_repr() const override { return fmt::format("feature_map=elu+1, eps={:g}", eps_); }

 protected:
  Var attend(const Var& q, const Var& k, const Var& v, const AttentionMasks& masks) override {
    Var phi_q = elu_feature_map(q);  // (B, H, N, E)
    Var phi_k = elu_feature_map(k);  // (B, H, S, E)
    if (masks.has_key_lengths()) {
      const int64_t B = k.size(0), S = k.size(2);
      Tensor keep = LengthMask(masks.key_lengths, S).float_matrix(k.dtype()).view({B, 1, S, 1});
      phi_k = mul(phi_k, Var(keep));
    }
    Var kv = matmul(transpose(phi_k, 2, 3), v);                    // (B, H, E, M)
    Var k_sum = unsqueeze(sum(phi_k, {2}), 3);                     // (B, H, E, 1)
    Var numerator = matmul(phi_q, kv);                             // (B, H, N, M)
    Var denominator = add(matmul(phi_q, k_sum), eps_);             // (B, H, N, 1)
    return div(numerator, denominator);
  }

 private:
  double eps_;
};

}  // namespace

void register_linear_attention(AttentionRegistry& registry) {
  registry.add(
      "linear", [](const AttentionParams& p, const AttentionContext&) {
        return std::make_shared<LinearAttention>(p.get_double("eps"));
      },
      {{"eps", ParamSpec::real(1e-6, 0, INFINITY, "added to the normaliser φ(Q)·Σφ(K)")}},
      "non-causal linear attention with φ = elu + 1; masks: full, key lengths");
}

}  // namespace lintra::nn
