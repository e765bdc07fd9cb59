#include "nn/encoder_layer.h"

#include "autograd/functional.h"

namespace lintra::nn {

TransformerOptions TransformerOptions::resolved() const {
  TransformerOptions o = *this;
  LINTRA_CHECK(o.n_layers >= 1 && o.d_model >= 1 && o.n_heads >= 1,
               "transformer: need n_layers, d_model, n_heads >= 1, got {}, {}, {}", o.n_layers, o.d_model, o.n_heads);
  if (o.d_keys == 0 || o.d_values == 0)
    LINTRA_CHECK(o.d_model % o.n_heads == 0,
                 "transformer: d_model {} is not divisible by n_heads {}; set d_keys and d_values explicitly",
                 o.d_model, o.n_heads);
  if (o.d_keys == 0) o.d_keys = o.d_model / o.n_heads;
  if (o.d_values == 0) o.d_values = o.d_model / o.n_heads;
  if (o.d_ff == 0) o.d_ff = 4 * o.d_model;
  LINTRA_CHECK(o.d_keys > 0 && o.d_values > 0 && o.d_ff > 0,
               "transformer: d_keys, d_values and d_ff must be positive, got {}, {}, {}", o.d_keys, o.d_values, o.d_ff);
  LINTRA_CHECK(o.dropout >= 0 && o.dropout < 1, "transformer: dropout {} is outside [0, 1)", o.dropout);
  return o;
}

TransformerEncoderLayer::TransformerEncoderLayer(const TransformerOptions& options_in,
                                                 const AttentionRegistry& registry, ModelRng& rng) {
  const TransformerOptions o = options_in.resolved();
  pre_norm_ = o.pre_norm;
  AttentionContext context{.query_dim = o.d_keys, .value_dim = o.d_values, .n_heads = o.n_heads,
                           .generator = rng.next_stream()};
  std::shared_ptr<InnerAttention> inner = registry.create(o.attention, o.attention_params, context);
  attention_ = register_module(
      "attention", std::make_shared<AttentionLayer>(o.d_model, o.n_heads, o.d_keys, o.d_values, inner, rng.init()));
  feed_forward_ = register_module("feed_forward", std::make_shared<FeedForward>(o.d_model, o.d_ff, o.activation,
                                                                                o.dropout, rng.init(), rng.next_stream()));
  norm1_ = register_module("norm1", std::make_shared<LayerNorm>(o.d_model, o.norm_eps));
  norm2_ = register_module("norm2", std::make_shared<LayerNorm>(o.d_model, o.norm_eps));
  dropout_ = register_module("dropout", std::make_shared<Dropout>(o.dropout, rng.next_stream()));
}

template <typename Attend>
Var TransformerEncoderLayer::apply(const Var& x, Attend&& attend) {
  // Each residual is added in the dropout's own pass (Dropout::add_to).
  if (pre_norm_) {
    Var h = dropout_->add_to(x, attend(norm1_->forward(x)));
    return dropout_->add_to(h, feed_forward_->forward(norm2_->forward(h)));
  }
  Var h = norm1_->forward(dropout_->add_to(x, attend(x)));
  return norm2_->forward(dropout_->add_to(h, feed_forward_->forward(h)));
}

Var TransformerEncoderLayer::forward(const Var& x, const AttentionMasks& masks) {
  return apply(x, [&](const Var& h) { return attention_->forward(h, masks); });
}

Var TransformerEncoderLayer::step(const Var& x_t, RecurrentState& state) {
  return apply(x_t, [&](const Var& h) { return attention_->step(h, state); });
}

}  // namespace lintra::nn
