// transformer_options.h — the hyperparameters of a transformer encoder (defaults: the paper's
// per-layer configuration, PAPER.md §2.1; the config's `model` section maps onto these fields).
#pragma once

#include <cstdint>
#include <string>

#include "nn/attention/registry.h"
#include "nn/feed_forward.h"

namespace lintra::nn {

struct TransformerOptions {
  int64_t n_layers = 4;
  int64_t d_model = 256;
  int64_t n_heads = 8;
  int64_t d_keys = 0;    // E per head; 0 → d_model / n_heads
  int64_t d_values = 0;  // M per head; 0 → d_model / n_heads
  int64_t d_ff = 0;      // feed-forward width; 0 → 4·d_model
  double dropout = 0.1;  // residual and feed-forward dropout
  Activation activation = Activation::relu;
  bool pre_norm = false;   // false: post-LN as the paper's code; true: x + f(LN(x))
  bool final_norm = true;  // a LayerNorm after the stack (the paper's builder)
  double norm_eps = 1e-5;
  std::string attention = "softmax";  // a registry name
  ParamMap attention_params;          // that variant's parameters (defaults for the rest)
  uint64_t seed = 0;                  // used by constructors that are not given a ModelRng

  // d_keys, d_values, d_ff with the zeros replaced; checks the sizes.
  TransformerOptions resolved() const;
};

}  // namespace lintra::nn
