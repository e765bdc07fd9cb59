// image_model.h — the paper's autoregressive image model (PAPER.md §2.2–2.3, Tables 1, 2, 4, 5):
// a TokenTransformer over the 256 pixel levels (embedding of D/2 concatenated with a sinusoidal
// PE of D/2, causal encoder with any registered attention) and a Linear head to the 3K parameters
// of a discretized mixture of K = 10 logistics per sub-pixel (nn/losses/mixture_of_logistics.h).
//
// Inputs are int64 (B, L) pixels in [0, 255]: L = 784 for MNIST (row-major), 3072 for CIFAR-10
// (HWC raster with the channel fastest, as the data layer yields it). As the paper's code, the model
// reads x[:, :-1] and predicts x[:, 1:], so bits/dim averages over the L − 1 predicted positions;
// the first pixel is never predicted (generation fixes it, nn/models/image_generation.h).
//
//   loss()      mean NLL in nats over B·(L − 1) positions; sums {"nll_sum", "count"}
//   summarize() {"loss" (nats per sub-pixel), "bits_per_dim" (= loss / ln 2)}
#pragma once

#include "nn/linear.h"
#include "nn/losses/mixture_of_logistics.h"
#include "nn/models/model.h"
#include "nn/models/token_transformer.h"

namespace lintra::nn {

class ImageModel : public Model {
 public:
  static constexpr int64_t kLevels = 256;

  // options.vocab must be 0 (taken as 256) or 256; `mixtures` is K (the paper: 10). Weights,
  // dropout streams and attention streams come from ModelRng(seed).
  ImageModel(const TokenTransformerOptions& options, uint64_t seed, int64_t mixtures = 10);

  // pixels (B, N) int64 → mixture parameters (B, N, 3K); row i predicts pixel i + 1.
  Var mixture_params(const Tensor& pixels);
  // The recurrent twin: pixel_t (B) int64 at `position` → (B, 3K), equal to row `position` of
  // mixture_params() of the prefix (needs an attention with a recurrent form).
  Var step(const Tensor& pixel_t, int64_t position, std::vector<RecurrentState>& states);
  bool has_recurrent() const { return trunk_->has_recurrent(); }
  std::vector<RecurrentState> initial_state() const { return trunk_->initial_state(); }

  ModelOutput loss(const ModelBatch& batch) override;
  std::map<std::string, double> summarize(const MetricSums& sums) const override;
  std::string primary_metric() const override { return "bits_per_dim"; }
  std::string item_name() const override { return "images"; }

  int64_t mixtures() const { return mixtures_; }
  const MixtureOfLogisticsOptions& loss_options() const { return loss_options_; }
  TokenTransformer& trunk() { return *trunk_; }
  const Linear& head() const { return *head_; }
  std::string type_name() const override { return "ImageModel"; }
  std::string extra_repr() const override;

 private:
  int64_t mixtures_;
  MixtureOfLogisticsOptions loss_options_;
  std::shared_ptr<TokenTransformer> trunk_;
  std::shared_ptr<Linear> head_;
};

}  // namespace lintra::nn
