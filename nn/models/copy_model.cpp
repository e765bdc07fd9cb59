#include "nn/models/copy_model.h"

#include "autograd/functional.h"

namespace lintra::nn {

CopyModel::CopyModel(const TokenTransformerOptions& options, uint64_t seed) {
  ModelRng rng(seed);
  trunk_ = register_module("trunk", std::make_shared<TokenTransformer>(options, rng));
  head_ = register_module("head", std::make_shared<Linear>(options.encoder.d_model, options.vocab, true, rng.init()));
}

Var CopyModel::logits(const Tensor& tokens) { return head_->forward(trunk_->forward(tokens)); }

ModelOutput CopyModel::loss(const ModelBatch& batch) {
  LINTRA_CHECK(batch.inputs.defined() && batch.inputs.dim() == 2, "CopyModel: expected int64 token inputs (B, L)");
  const int64_t L = batch.inputs.size(1);
  LINTRA_CHECK(L >= 2, "CopyModel: sequences need at least 2 tokens, got {}", L);
  Tensor x = batch.inputs.narrow(1, 0, L - 1).contiguous();
  Tensor y = batch.inputs.narrow(1, 1, L - 1).contiguous();
  Tensor counted = batch.mask.defined() ? batch.mask : Tensor::ones(y.shape(), kBool);
  LINTRA_CHECK(counted.shape() == y.shape(), "CopyModel: mask {} must match the targets {}", shape_str(counted.shape()),
               shape_str(y.shape()));
  // Positions outside the mask get the ignore index.
  Tensor target = ops::where(counted, y, Tensor::scalar(-100, DType::i64));
  Var z = logits(x);
  Var loss = cross_entropy(z, target, -100, Reduction::mean);
  Tensor pred = ops::argmax(z.data(), -1);
  Tensor correct = ops::mul(ops::eq(pred, y).to(DType::i64), counted.to(DType::i64));
  const double count = ops::sum(counted).item();
  return {loss, {{"nll_sum", loss.item() * count}, {"count", count}, {"correct", ops::sum(correct).item()}}};
}

std::map<std::string, double> CopyModel::summarize(const MetricSums& s) const {
  double count = s.count("count") ? s.at("count") : 0;
  if (count <= 0) return {};
  return {{"loss", s.at("nll_sum") / count}, {"accuracy", s.at("correct") / count}};
}

}  // namespace lintra::nn
