#include "nn/models/token_transformer.h"

namespace lintra::nn {

TokenTransformer::TokenTransformer(const TokenTransformerOptions& options, ModelRng& rng) : options_(options) {
  LINTRA_CHECK(options.vocab > 0, "TokenTransformer: vocab must be positive, got {}", options.vocab);
  const int64_t d_model = options.encoder.d_model;
  positional_ = register_module("positional", std::make_shared<PositionalEncoding>(d_model, options.positional));
  embedding_ = register_module("embedding", std::make_shared<Embedding>(options.vocab, positional_->input_dim(), rng.init()));
  encoder_ = register_module("encoder", std::make_shared<TransformerEncoder>(options.encoder, rng));
}

Var TokenTransformer::forward(const Tensor& tokens) {
  LINTRA_CHECK(tokens.dim() == 2 && tokens.dtype() == DType::i64,
               "TokenTransformer: tokens must be int64 (B, N), got {}", tokens.describe());
  Var x = positional_->forward(embedding_->forward(tokens));
  return encoder_->forward(x, AttentionMasks::causal());
}

Var TokenTransformer::step(const Tensor& token_t, int64_t position, std::vector<RecurrentState>& states) {
  LINTRA_CHECK(token_t.dim() == 1 && token_t.dtype() == DType::i64,
               "TokenTransformer::step: token must be int64 (B), got {}", token_t.describe());
  Var x = positional_->step(embedding_->forward(token_t), position);
  return encoder_->step(x, states);
}

}  // namespace lintra::nn
