// copy_model.h — the copy task's model (PAPER.md §2.3, Figure 2): TokenTransformer over the 11
// symbols (0 = separator/padding, 1 … 10) and a linear head to 11 logits. Input x[:-1], target
// x[1:]; the loss (mean cross entropy) and the accuracy count only the positions the data's mask
// selects (the separator and the copy).
#pragma once

#include "nn/linear.h"
#include "nn/models/model.h"
#include "nn/models/token_transformer.h"

namespace lintra::nn {

class CopyModel : public Model {
 public:
  CopyModel(const TokenTransformerOptions& options, uint64_t seed);
  Var logits(const Tensor& tokens);  // (B, N) → (B, N, vocab)
  // Greedy continuation: `steps` tokens, each the argmax of the logits after the prefix and the tokens
  // chosen so far (the whole sequence recomputed per token, as the paper's copy evaluation). prefix
  // int64 (B, P ≥ 1) on the model's device → int64 (B, steps) there. Eval mode and no autograd inside.
  Tensor greedy(const Tensor& prefix, int64_t steps);
  ModelOutput loss(const ModelBatch& batch) override;
  std::map<std::string, double> summarize(const MetricSums& sums) const override;
  std::string type_name() const override { return "CopyModel"; }
  TokenTransformer& trunk() { return *trunk_; }

 private:
  std::shared_ptr<TokenTransformer> trunk_;
  std::shared_ptr<Linear> head_;
};

}  // namespace lintra::nn
