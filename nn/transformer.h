// transformer.h — a stack of encoder layers plus a final LayerNorm (fast-transformers'
// TransformerEncoder as built by its builder, PAPER.md §2.1).
//
//   TransformerOptions o;
//   o.n_layers = 8; o.d_model = 256; o.n_heads = 8; o.attention = "causal-linear";
//   auto encoder = std::make_shared<TransformerEncoder>(o);          // weights from o.seed
//   Var y = encoder->forward(x, AttentionMasks::causal());             // x (B, N, D) → (B, N, D)
//
//   std::vector<RecurrentState> state = encoder->initial_state();     // the same model as an RNN
//   for (t …) y_t = encoder->step(x_t, state);                         // x_t (B, D) → (B, D)
//
// step() needs a variant with a recurrent form (causal-linear, softmax); its outputs equal the rows
// of forward(x, causal) in order. Parameters are named layers.<i>.attention.query.weight, …, norm.weight.
#pragma once

#include <memory>
#include <vector>

#include "nn/encoder_layer.h"

namespace lintra::nn {

class TransformerEncoder : public Module {
 public:
  // Weights and dropout streams from ModelRng(options.seed).
  explicit TransformerEncoder(const TransformerOptions& options,
                              const AttentionRegistry& registry = builtin_attention_registry());
  // Weights and dropout streams from a model-wide `rng` (embeddings and heads share it).
  TransformerEncoder(const TransformerOptions& options, ModelRng& rng,
                     const AttentionRegistry& registry = builtin_attention_registry());

  Var forward(const Var& x, const AttentionMasks& masks = {});  // (B, N, D) → (B, N, D)
  // One time step through every layer; `states` holds one RecurrentState per layer (resized on
  // first use when empty).
  Var step(const Var& x_t, std::vector<RecurrentState>& states);  // (B, D) → (B, D)
  std::vector<RecurrentState> initial_state() const { return std::vector<RecurrentState>(size_t(layers_.size())); }
  bool has_recurrent() const;

  const TransformerOptions& options() const { return options_; }
  int64_t n_layers() const { return int64_t(layers_.size()); }
  TransformerEncoderLayer& layer(int64_t i) { return *layers_.at(size_t(i)); }
  const LayerNorm* final_norm() const { return norm_.get(); }  // null without final_norm

  std::string type_name() const override { return "TransformerEncoder"; }
  std::string extra_repr() const override;

 private:
  void build(ModelRng& rng, const AttentionRegistry& registry);

  TransformerOptions options_;
  std::vector<std::shared_ptr<TransformerEncoderLayer>> layers_;
  std::shared_ptr<LayerNorm> norm_;  // null without final_norm
};

}  // namespace lintra::nn
