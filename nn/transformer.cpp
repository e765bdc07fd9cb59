#include "nn/transformer.h"

#include <fmt/format.h>

namespace lintra::nn {

TransformerEncoder::TransformerEncoder(const TransformerOptions& options, const AttentionRegistry& registry)
    : options_(options.resolved()) {
  ModelRng rng(options_.seed);
  build(rng, registry);
}

TransformerEncoder::TransformerEncoder(const TransformerOptions& options, ModelRng& rng,
                                       const AttentionRegistry& registry)
    : options_(options.resolved()) {
  build(rng, registry);
}

void TransformerEncoder::build(ModelRng& rng, const AttentionRegistry& registry) {
  auto list = register_module("layers", std::make_shared<ModuleList>());
  for (int64_t i = 0; i < options_.n_layers; ++i) {
    layers_.push_back(std::make_shared<TransformerEncoderLayer>(options_, registry, rng));
    list->push_back(layers_.back());
  }
  if (options_.final_norm) norm_ = register_module("norm", std::make_shared<LayerNorm>(options_.d_model, options_.norm_eps));
}

Var TransformerEncoder::forward(const Var& x, const AttentionMasks& masks) {
  LINTRA_CHECK(x.dim() == 3 && x.size(2) == options_.d_model, "TransformerEncoder: input must be (B, N, {}), got {}",
               options_.d_model, shape_str(x.shape()));
  Var h = x;
  for (auto& layer : layers_) h = layer->forward(h, masks);
  return norm_ ? norm_->forward(h) : h;
}

Var TransformerEncoder::step(const Var& x_t, std::vector<RecurrentState>& states) {
  LINTRA_CHECK(x_t.dim() == 2 && x_t.size(1) == options_.d_model,
               "TransformerEncoder::step: input must be (B, {}), got {}", options_.d_model, shape_str(x_t.shape()));
  if (states.empty()) states.resize(layers_.size());
  LINTRA_CHECK(states.size() == layers_.size(), "TransformerEncoder::step: {} states for {} layers", states.size(),
               layers_.size());
  Var h = x_t;
  for (size_t i = 0; i < layers_.size(); ++i) h = layers_[i]->step(h, states[i]);
  return norm_ ? norm_->forward(h) : h;
}

bool TransformerEncoder::has_recurrent() const {
  for (const auto& layer : layers_)
    if (!layer->attention().inner().has_recurrent()) return false;
  return true;
}

std::string TransformerEncoder::extra_repr() const {
  const TransformerOptions& o = options_;
  return fmt::format("layers={}, d_model={}, heads={}, d_ff={}, attention={}, {}", o.n_layers, o.d_model, o.n_heads,
                     o.d_ff, o.attention, o.pre_norm ? "pre-LN" : "post-LN");
}

}  // namespace lintra::nn
