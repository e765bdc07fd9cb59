#include "nn/attention/attention_layer.h"

#include <fmt/format.h>

#include "autograd/functional.h"

namespace lintra::nn {

namespace {

// (B, L, H·E) → (B, H, L, E): a view (the inner attention and matmul read strided batches).
Var split_heads(const Var& x, int64_t H) {
  return permute(reshape(x, {x.size(0), x.size(1), H, x.size(2) / H}), {0, 2, 1, 3});
}

// (B, H, L, M) → (B, L, H·M)
Var merge_heads(const Var& x) {
  return reshape(permute(x, {0, 2, 1, 3}), {x.size(0), x.size(2), x.size(1) * x.size(3)});
}

}  // namespace

AttentionLayer::AttentionLayer(int64_t d_model, int64_t n_heads, int64_t d_keys, int64_t d_values,
                               std::shared_ptr<InnerAttention> inner, Generator& init_gen)
    : d_model_(d_model), n_heads_(n_heads), d_keys_(d_keys), d_values_(d_values) {
  LINTRA_CHECK(d_model_ > 0 && n_heads_ > 0, "AttentionLayer: need d_model > 0 and n_heads > 0, got {} and {}",
               d_model_, n_heads_);
  LINTRA_CHECK(inner != nullptr, "AttentionLayer: the inner attention is null");
  if (d_keys_ == 0 || d_values_ == 0) {
    LINTRA_CHECK(d_model_ % n_heads_ == 0,
                 "AttentionLayer: d_model {} is not divisible by n_heads {}; give d_keys and d_values explicitly",
                 d_model_, n_heads_);
    if (d_keys_ == 0) d_keys_ = d_model_ / n_heads_;
    if (d_values_ == 0) d_values_ = d_model_ / n_heads_;
  }
  LINTRA_CHECK(d_keys_ > 0 && d_values_ > 0, "AttentionLayer: d_keys and d_values must be positive, got {} and {}",
               d_keys_, d_values_);
  query_ = register_module("query", std::make_shared<Linear>(d_model_, d_keys_ * n_heads_, true, init_gen));
  key_ = register_module("key", std::make_shared<Linear>(d_model_, d_keys_ * n_heads_, true, init_gen));
  value_ = register_module("value", std::make_shared<Linear>(d_model_, d_values_ * n_heads_, true, init_gen));
  out_ = register_module("out", std::make_shared<Linear>(d_values_ * n_heads_, d_model_, true, init_gen));
  inner_ = register_module("inner_attention", std::move(inner));
}

Var AttentionLayer::forward(const Var& x_q, const Var& x_k, const Var& x_v, const AttentionMasks& masks) {
  LINTRA_CHECK(x_q.dim() == 3 && x_k.dim() == 3 && x_v.dim() == 3 && x_q.size(2) == d_model_ &&
                   x_k.size(2) == d_model_ && x_v.size(2) == d_model_,
               "AttentionLayer: inputs must be (B, L, {}), got queries {}, keys {}, values {}", d_model_,
               shape_str(x_q.shape()), shape_str(x_k.shape()), shape_str(x_v.shape()));
  Var q = split_heads(query_->forward(x_q), n_heads_);  // (B, H, N, E)
  Var k = split_heads(key_->forward(x_k), n_heads_);    // (B, H, S, E)
  Var v = split_heads(value_->forward(x_v), n_heads_);  // (B, H, S, M)
  return out_->forward(merge_heads(inner_->forward(q, k, v, masks)));
}

Var AttentionLayer::step(const Var& x_t, RecurrentState& state) {
  LINTRA_CHECK(x_t.dim() == 2 && x_t.size(1) == d_model_, "AttentionLayer::step: input must be (B, {}), got {}",
               d_model_, shape_str(x_t.shape()));
  const int64_t B = x_t.size(0);
  Var q = reshape(query_->forward(x_t), {B, n_heads_, d_keys_});    // (B, H, E)
  Var k = reshape(key_->forward(x_t), {B, n_heads_, d_keys_});      // (B, H, E)
  Var v = reshape(value_->forward(x_t), {B, n_heads_, d_values_});  // (B, H, M)
  Var y = inner_->step(q, k, v, state);                              // (B, H, M)
  return out_->forward(reshape(y, {B, n_heads_ * d_values_}));
}

std::string AttentionLayer::extra_repr() const {
  return fmt::format("d_model={}, heads={}, d_keys={}, d_values={}, attention={}", d_model_, n_heads_, d_keys_,
                     d_values_, inner_->variant());
}

}  // namespace lintra::nn
