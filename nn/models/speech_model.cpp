// speech_model.cpp — the CTC speech models of speech_model.h.
#include "nn/models/speech_model.h"

#include <limits>

#include "autograd/functional.h"
#include "nn/losses/ctc.h"

namespace lintra::nn {

SpeechModel::SpeechModel(int64_t input_dim, int64_t n_phones) : input_dim_(input_dim), n_phones_(n_phones) {
  LINTRA_CHECK(input_dim > 0, "speech model: input_dim must be positive, got {}", input_dim);
  LINTRA_CHECK(n_phones > 0, "speech model: n_phones must be set (positive), got {}", n_phones);
}

std::pair<Tensor, Tensor> SpeechModel::checked_inputs(const Tensor& features, const Tensor& lengths, DType dtype) const {
  LINTRA_CHECK(features.defined() && features.dim() == 3 && features.size(2) == input_dim_,
               "{}: features must be (B, T, {}), got {}", type_name(), input_dim_,
               features.defined() ? features.describe() : "undefined");
  const int64_t B = features.size(0), T = features.size(1);
  Tensor len = lengths.defined() ? lengths : Tensor::full({B}, double(T), DType::i64);
  LINTRA_CHECK(len.dtype() == DType::i64 && len.dim() == 1 && len.size(0) == B,
               "{}: lengths must be int64 ({}), got {}", type_name(), B, len.describe());
  return {features.dtype() == dtype ? features : features.to(dtype), len};
}

ModelOutput SpeechModel::loss(const ModelBatch& batch) {
  LINTRA_CHECK(batch.targets.defined() && batch.target_lengths.defined(),
               "{}: the batch needs targets and target_lengths", type_name());
  Var z = log_probs(batch.features, batch.lengths);
  const int64_t B = z.size(0), T = z.size(1);
  Tensor lengths = batch.lengths.defined() ? batch.lengths : Tensor::full({B}, double(T), DType::i64);
  Var loss = ctc_loss(z, batch.targets, lengths, batch.target_lengths, Reduction::mean);
  MetricSums sums{{"nll_sum", loss.item() * double(B)}, {"count", double(B)}};
  {
    NoGradGuard no_grad;
    const std::vector<std::vector<int64_t>> hyp = ctc_greedy_decode(z.detach().data(), lengths);
    const std::vector<int64_t> tg = batch.targets.to_vector<int64_t>();
    const std::vector<int64_t> tl = batch.target_lengths.to_vector<int64_t>();
    const int64_t S = batch.targets.size(1);
    double dist = 0, ref = 0;
    for (int64_t b = 0; b < B; ++b) {
      std::vector<int64_t> r(tg.begin() + b * S, tg.begin() + b * S + tl[size_t(b)]);
      dist += double(edit_distance(hyp[size_t(b)], r));
      ref += double(r.size());
    }
    sums["edit_distance"] = dist;
    sums["ref_length"] = ref;
  }
  return {loss, sums};
}

std::map<std::string, double> SpeechModel::summarize(const MetricSums& s) const {
  const double count = s.count("count") ? s.at("count") : 0;
  if (count <= 0) return {};
  std::map<std::string, double> out{{"loss", s.at("nll_sum") / count}};
  const double ref = s.count("ref_length") ? s.at("ref_length") : 0;
  if (ref > 0) out["per"] = s.at("edit_distance") / ref;
  return out;
}

// --- transformer ---------------------------------------------------------------------------------

SpeechTransformerModel::SpeechTransformerModel(const SpeechTransformerOptions& options, uint64_t seed)
    : SpeechModel(options.input_dim, options.n_phones) {
  ModelRng rng(seed);
  const int64_t D = options.encoder.d_model;
  auto positional = std::make_shared<PositionalEncoding>(D, options.positional);
  input_ = register_module("input", std::make_shared<Linear>(options.input_dim, positional->input_dim(), true, rng.init()));
  positional_ = register_module("positional", positional);
  encoder_ = register_module("encoder", std::make_shared<TransformerEncoder>(options.encoder, rng));
  head_ = register_module("head", std::make_shared<Linear>(D, n_classes(), true, rng.init()));
}

Var SpeechTransformerModel::log_probs(const Tensor& features, const Tensor& lengths) {
  auto [x, len] = checked_inputs(features, lengths, input_->weight().dtype());
  Var h = positional_->forward(input_->forward(Var(x)));
  h = encoder_->forward(h, AttentionMasks::full().with_key_lengths(len));
  return log_softmax(head_->forward(h), -1);
}

std::string SpeechTransformerModel::extra_repr() const {
  return fmt::format("input={}, phones={}, attention={}, positional={}", input_dim_, n_phones_,
                     encoder_->options().attention, positional_mode_name(positional_->mode()));
}

// --- Bi-LSTM -------------------------------------------------------------------------------------

BiLstmModel::BiLstmModel(const BiLstmOptions& options, uint64_t seed) : SpeechModel(options.input_dim, options.n_phones) {
  ModelRng rng(seed);
  lstm_ = register_module("lstm", std::make_shared<LSTM>(options.input_dim, options.hidden_size, options.num_layers,
                                                         options.bidirectional, rng.init()));
  head_ = register_module("head", std::make_shared<Linear>(lstm_->output_size(), n_classes(), true, rng.init()));
}

Var BiLstmModel::log_probs(const Tensor& features, const Tensor& lengths) {
  auto [x, len] = checked_inputs(features, lengths, head_->weight().dtype());
  return log_softmax(head_->forward(lstm_->forward(Var(x), len)), -1);
}

std::string BiLstmModel::extra_repr() const { return fmt::format("input={}, phones={}", input_dim_, n_phones_); }

}  // namespace lintra::nn
