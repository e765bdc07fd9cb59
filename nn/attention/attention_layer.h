// attention_layer.h — multi-head attention around any inner attention (fast-transformers'
// AttentionLayer): projections with bias, head split, the inner attention, merge, output projection.
//
//   Q = x_q W_Qᵀ + b_Q (B, N, H·E) → (B, H, N, E);  K = x_k W_Kᵀ + b_K → (B, H, S, E);
//   V = x_v W_Vᵀ + b_V → (B, H, S, M);  out = merge(inner(Q, K, V, masks)) W_Oᵀ + b_O  (B, N, D)
// E = d_keys and M = d_values are per head (default D / H). The projections cost
// O(B·(N + 2S)·D·H·E + B·N·H·M·D); the inner attention costs what its variant says.
//
// step(x_t, state) is the same layer on one time step of a causal model: x_t (B, D) is projected
// to q_t, k_t (B, H, E) and v_t (B, H, M) and handed to the inner attention's recurrent form with
// this layer's state; the weights are the ones forward() uses.
#pragma once

#include <memory>

#include "nn/attention/inner_attention.h"
#include "nn/linear.h"

namespace lintra::nn {

class AttentionLayer : public Module {
 public:
  // d_keys / d_values: per-head widths E / M; 0 means d_model / n_heads.
  AttentionLayer(int64_t d_model, int64_t n_heads, int64_t d_keys, int64_t d_values,
                 std::shared_ptr<InnerAttention> inner, Generator& init_gen);

  // x_q (B, N, D), x_k (B, S, D), x_v (B, S, D) → (B, N, D)
  Var forward(const Var& x_q, const Var& x_k, const Var& x_v, const AttentionMasks& masks);
  Var forward(const Var& x, const AttentionMasks& masks) { return forward(x, x, x, masks); }  // self-attention
  // One time step of self-attention: x_t (B, D) → (B, D); `state` carries the inner attention's state.
  Var step(const Var& x_t, RecurrentState& state);

  InnerAttention& inner() { return *inner_; }
  const Linear& query() const { return *query_; }
  const Linear& key() const { return *key_; }
  const Linear& value() const { return *value_; }
  const Linear& out() const { return *out_; }
  int64_t d_model() const { return d_model_; }
  int64_t n_heads() const { return n_heads_; }
  int64_t d_keys() const { return d_keys_; }
  int64_t d_values() const { return d_values_; }

  std::string type_name() const override { return "AttentionLayer"; }
  std::string extra_repr() const override;

 private:
  int64_t d_model_, n_heads_, d_keys_, d_values_;
  std::shared_ptr<Linear> query_, key_, value_, out_;
  std::shared_ptr<InnerAttention> inner_;
};

}  // namespace lintra::nn
