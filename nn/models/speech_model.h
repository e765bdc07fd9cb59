// speech_model.h — the WSJ speech recognition models (PAPER.md §2.2–2.3, Table 3): non-causal
// encoders over 40-dim filterbank frames trained with CTC over the phone set (blank = class 0, phones
// 1 … n_phones), reporting the phone error rate of greedy (best path) decoding.
//
//   SpeechTransformerModel  Linear(F → D) + sinusoidal positions (added) + non-causal TransformerEncoder
//                           with key-length masks (any attention that honours full masks: softmax,
//                           linear, reformer; the paper: 9 layers × 6 heads) + Linear(D → n_phones + 1)
//   BiLstmModel             LSTM(F → H, layers, bidirectional; the paper: 3 × 320) + Linear(2H → n_phones + 1)
//
// loss(batch) reads features float32 (B, T, F), lengths (B), targets (B, S), target_lengths (B):
//   z = log_softmax(logits), loss = ctc_loss(z, …, mean): NLL_b / max(S_b, 1) averaged over the batch
//   sums: nll_sum = Σ_b NLL_b / max(S_b, 1), count = B, edit_distance = Σ_b lev(greedy_b, target_b),
//         ref_length = Σ_b S_b
//   summarize: loss = nll_sum / count (the training loss pooled), per = edit_distance / ref_length.
// Decoding runs under NoGradGuard on the detached log-probabilities.
#pragma once

#include "nn/linear.h"
#include "nn/lstm.h"
#include "nn/models/model.h"
#include "nn/positional_encoding.h"
#include "nn/transformer.h"

namespace lintra::nn {

// What both speech models share: CTC loss, PER metrics and summaries over log_probs().
class SpeechModel : public Model {
 public:
  // features (B, T, F) float, lengths int64 (B) or undefined (all T) → log-probabilities (B, T, n_phones + 1).
  virtual Var log_probs(const Tensor& features, const Tensor& lengths) = 0;
  ModelOutput loss(const ModelBatch& batch) override;
  std::map<std::string, double> summarize(const MetricSums& sums) const override;
  std::string primary_metric() const override { return "per"; }
  std::string item_name() const override { return "utterances"; }
  int64_t n_classes() const { return n_phones_ + 1; }

 protected:
  SpeechModel(int64_t input_dim, int64_t n_phones);
  // Checks features (B, T, input_dim) and lengths; returns features in the parameters' dtype and
  // the lengths (filled with T when undefined).
  std::pair<Tensor, Tensor> checked_inputs(const Tensor& features, const Tensor& lengths, DType dtype) const;

  int64_t input_dim_, n_phones_;
};

struct SpeechTransformerOptions {
  TransformerOptions encoder;  // attention must accept full masks with key lengths (not causal-linear)
  int64_t input_dim = 40;      // filterbank channels
  int64_t n_phones = 0;        // labels 1 … n_phones; must be set
  // add: features projected to d_model plus the encoding; concat: projected to d_model/2 beside it.
  PositionalMode positional = PositionalMode::add;
};

class SpeechTransformerModel : public SpeechModel {
 public:
  SpeechTransformerModel(const SpeechTransformerOptions& options, uint64_t seed);
  Var log_probs(const Tensor& features, const Tensor& lengths) override;
  std::string type_name() const override { return "SpeechTransformerModel"; }
  std::string extra_repr() const override;

 private:
  std::shared_ptr<Linear> input_;
  std::shared_ptr<PositionalEncoding> positional_;
  std::shared_ptr<TransformerEncoder> encoder_;
  std::shared_ptr<Linear> head_;
};

struct BiLstmOptions {
  int64_t input_dim = 40;
  int64_t hidden_size = 320;
  int64_t num_layers = 3;
  bool bidirectional = true;
  int64_t n_phones = 0;
};

class BiLstmModel : public SpeechModel {
 public:
  BiLstmModel(const BiLstmOptions& options, uint64_t seed);
  Var log_probs(const Tensor& features, const Tensor& lengths) override;
  std::string type_name() const override { return "BiLstmModel"; }
  std::string extra_repr() const override;
  LSTM& lstm() { return *lstm_; }

 private:
  std::shared_ptr<LSTM> lstm_;
  std::shared_ptr<Linear> head_;
};

}  // namespace lintra::nn
