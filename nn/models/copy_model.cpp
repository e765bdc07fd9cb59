#include "nn/models/copy_model.h"

#include "autograd/functional.h"
#include "autograd/node.h"

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
  const Device dev = batch.inputs.device();
  Tensor counted = batch.mask.defined() ? batch.mask : Tensor::ones(y.shape(), kBool, dev);
  LINTRA_CHECK(counted.shape() == y.shape(), "CopyModel: mask {} must match the targets {}", shape_str(counted.shape()),
               shape_str(y.shape()));
  // Positions outside the mask get the ignore index.
  Tensor target = ops::where(counted, y, Tensor::scalar(-100, DType::i64, dev));
  Var z = logits(x);
  Var loss = cross_entropy(z, target, -100, Reduction::mean);
  Tensor pred = ops::argmax(z.data(), -1);
  Tensor correct = ops::mul(ops::eq(pred, y).to(DType::i64), counted.to(DType::i64));
  const double count = host_scalar(ops::sum(counted));
  return {loss,
          {{"nll_sum", host_scalar(loss.data()) * count}, {"count", count}, {"correct", host_scalar(ops::sum(correct))}}};
}

Tensor CopyModel::greedy(const Tensor& prefix, int64_t steps) {
  LINTRA_CHECK(prefix.defined() && prefix.dim() == 2 && prefix.dtype() == DType::i64 && prefix.size(1) >= 1,
               "CopyModel::greedy: prefix must be int64 (B, P ≥ 1), got {}",
               prefix.defined() ? prefix.describe() : "undefined");
  LINTRA_CHECK(steps >= 0, "CopyModel::greedy: steps must be non-negative, got {}", steps);
  const bool was_training = is_training();
  eval();
  NoGradGuard no_grad;
  Tensor seq = prefix.contiguous();
  for (int64_t k = 0; k < steps; ++k) {
    const Tensor z = logits(seq).data();                          // (B, P + k, V)
    const Tensor next = ops::argmax(z.select(1, z.size(1) - 1), -1);  // (B)
    seq = ops::cat({seq, next.unsqueeze(1)}, 1);
  }
  train(was_training);
  return seq.narrow(1, prefix.size(1), steps).contiguous();
}

std::map<std::string, double> CopyModel::summarize(const MetricSums& s) const {
  double count = s.count("count") ? s.at("count") : 0;
  if (count <= 0) return {};
  return {{"loss", s.at("nll_sum") / count}, {"accuracy", s.at("correct") / count}};
}

}  // namespace lintra::nn
