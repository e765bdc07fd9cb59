// token_transformer.h — the trunk shared by the paper's autoregressive models (copy task, images):
// a token embedding, a sinusoidal positional encoding (concatenated: embedding of D/2 and PE of D/2,
// as the paper's code; or added) and a causal transformer encoder.
//
//   forward(tokens (B, N) int64) → hidden (B, N, D), causal: position i sees tokens 0 … i
//   step(token_t (B) int64, position, states) → hidden_t (B, D): the same model as an RNN, for
//   variants with a recurrent form (causal-linear, softmax with a key/value cache)
#pragma once

#include <memory>
#include <vector>

#include "nn/embedding.h"
#include "nn/positional_encoding.h"
#include "nn/transformer.h"

namespace lintra::nn {

struct TokenTransformerOptions {
  int64_t vocab = 0;                 // token values in [0, vocab)
  PositionalMode positional = PositionalMode::concat;
  TransformerOptions encoder;        // d_model, layers, heads, attention …
};

class TokenTransformer : public Module {
 public:
  TokenTransformer(const TokenTransformerOptions& options, ModelRng& rng);
  Var forward(const Tensor& tokens);
  Var step(const Tensor& token_t, int64_t position, std::vector<RecurrentState>& states);
  bool has_recurrent() const { return encoder_->has_recurrent(); }
  std::vector<RecurrentState> initial_state() const { return encoder_->initial_state(); }
  const TokenTransformerOptions& options() const { return options_; }
  const Embedding& embedding() const { return *embedding_; }
  const PositionalEncoding& positional() const { return *positional_; }
  TransformerEncoder& encoder() { return *encoder_; }
  std::string type_name() const override { return "TokenTransformer"; }

 private:
  TokenTransformerOptions options_;
  std::shared_ptr<Embedding> embedding_;
  std::shared_ptr<PositionalEncoding> positional_;
  std::shared_ptr<TransformerEncoder> encoder_;
};

}  // namespace lintra::nn
