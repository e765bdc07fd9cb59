#include "nn/models/image_model.h"

#include <cmath>

#include "autograd/functional.h"

namespace lintra::nn {

namespace {

TokenTransformerOptions with_pixel_vocab(TokenTransformerOptions o) {
  LINTRA_CHECK(o.vocab == 0 || o.vocab == ImageModel::kLevels,
               "ImageModel: the vocabulary is the {} pixel levels; set vocab to 0 or {}, got {}", ImageModel::kLevels,
               ImageModel::kLevels, o.vocab);
  o.vocab = ImageModel::kLevels;
  return o;
}

}  // namespace

ImageModel::ImageModel(const TokenTransformerOptions& options, uint64_t seed, int64_t mixtures) : mixtures_(mixtures) {
  LINTRA_CHECK(mixtures > 0, "ImageModel: mixtures must be positive, got {}", mixtures);
  loss_options_.levels = kLevels;
  ModelRng rng(seed);
  trunk_ = register_module("trunk", std::make_shared<TokenTransformer>(with_pixel_vocab(options), rng));
  head_ = register_module("head",
                          std::make_shared<Linear>(options.encoder.d_model, 3 * mixtures, true, rng.init()));
}

Var ImageModel::mixture_params(const Tensor& pixels) {
  LINTRA_CHECK(pixels.defined() && pixels.dim() == 2 && pixels.dtype() == DType::i64,
               "ImageModel: pixels must be int64 (B, N), got {}", pixels.defined() ? pixels.describe() : "undefined");
  check_pixel_values(pixels, kLevels, "ImageModel");
  return head_->forward(trunk_->forward(pixels));
}

Var ImageModel::step(const Tensor& pixel_t, int64_t position, std::vector<RecurrentState>& states) {
  LINTRA_CHECK(pixel_t.defined() && pixel_t.dim() == 1 && pixel_t.dtype() == DType::i64,
               "ImageModel::step: pixel_t must be int64 (B), got {}",
               pixel_t.defined() ? pixel_t.describe() : "undefined");
  check_pixel_values(pixel_t, kLevels, "ImageModel::step");
  return head_->forward(trunk_->step(pixel_t, position, states));
}

ModelOutput ImageModel::loss(const ModelBatch& batch) {
  LINTRA_CHECK(batch.inputs.defined() && batch.inputs.dim() == 2 && batch.inputs.dtype() == DType::i64,
               "ImageModel: expected int64 pixel inputs (B, L), got {}",
               batch.inputs.defined() ? batch.inputs.describe() : "undefined");
  const int64_t B = batch.inputs.size(0), L = batch.inputs.size(1);
  LINTRA_CHECK(B >= 1 && L >= 2, "ImageModel: images need at least 2 pixels and a batch of at least 1, got {}",
               batch.inputs.describe());
  check_pixel_values(batch.inputs, kLevels, "ImageModel");
  Tensor x = batch.inputs.narrow(1, 0, L - 1).contiguous();
  Tensor y = batch.inputs.narrow(1, 1, L - 1).contiguous();
  Var loss = mixture_of_logistics_nll(mixture_params(x), y, Reduction::mean, loss_options_);
  const double count = double(B * (L - 1));
  return {loss, {{"nll_sum", host_scalar(loss.data()) * count}, {"count", count}}};
}

std::map<std::string, double> ImageModel::summarize(const MetricSums& s) const {
  const double count = s.count("count") ? s.at("count") : 0;
  if (count <= 0) return {};
  const double nats = s.at("nll_sum") / count;
  return {{"loss", nats}, {"bits_per_dim", nats / std::log(2.0)}};
}

std::string ImageModel::extra_repr() const { return fmt::format("levels={}, mixtures={}", kLevels, mixtures_); }

}  // namespace lintra::nn
