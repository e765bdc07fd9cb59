// encoder_layer.h — one transformer encoder layer (fast-transformers' TransformerEncoderLayer).
//
// post-LN (default, the paper's code):   x ← LN1(x + Dropout(Attn(x)))
//                                         y = LN2(x + Dropout(FF(x))),  FF = W2·Dropout(act(W1·x))
// pre-LN (pre_norm):                      x ← x + Dropout(Attn(LN1(x)));  y = x + Dropout(FF(LN2(x)))
// Cost per layer: the attention variant's plus O(B·N·D·(4·H·E + 2·d_ff)) for projections and FF.
//
// step(x_t, state) runs the same layer on one time step (the attention's recurrent form with the
// same weights, then the same residuals, norms and feed-forward), so a model trained with
// forward() is its own recurrent twin.
#pragma once

#include <memory>

#include "nn/attention/attention_layer.h"
#include "nn/dropout.h"
#include "nn/feed_forward.h"
#include "nn/init.h"
#include "nn/layer_norm.h"
#include "nn/transformer_options.h"

namespace lintra::nn {

class TransformerEncoderLayer : public Module {
 public:
  // Builds the inner attention `options.attention` from `registry` with its own random stream.
  TransformerEncoderLayer(const TransformerOptions& options, const AttentionRegistry& registry, ModelRng& rng);

  Var forward(const Var& x, const AttentionMasks& masks);  // (B, N, D) → (B, N, D)
  Var step(const Var& x_t, RecurrentState& state);         // (B, D) → (B, D)

  AttentionLayer& attention() { return *attention_; }
  const FeedForward& feed_forward() const { return *feed_forward_; }
  const LayerNorm& norm1() const { return *norm1_; }
  const LayerNorm& norm2() const { return *norm2_; }
  bool pre_norm() const { return pre_norm_; }

  std::string type_name() const override { return "TransformerEncoderLayer"; }
  std::string extra_repr() const override { return pre_norm_ ? "pre-LN" : "post-LN"; }

 private:
  template <typename Attend>
  Var apply(const Var& x, Attend&& attend);

  bool pre_norm_;
  std::shared_ptr<AttentionLayer> attention_;
  std::shared_ptr<FeedForward> feed_forward_;
  std::shared_ptr<LayerNorm> norm1_, norm2_;
  std::shared_ptr<Dropout> dropout_;
};

}  // namespace lintra::nn
