#include "nn/models/model.h"

namespace lintra::nn {

int64_t ModelBatch::batch_size() const {
  if (inputs.defined()) return inputs.size(0);
  if (features.defined()) return features.size(0);
  return 0;
}

ModelBatch ModelBatch::to(Device device) const {
  auto move = [device](const Tensor& t) { return t.defined() ? t.to(device) : t; };
  return {move(inputs), move(features), move(lengths), move(targets), move(target_lengths), move(mask)};
}

double host_scalar(const Tensor& t) { return t.cpu().item(); }

void accumulate_sums(MetricSums& a, const MetricSums& b) {
  for (const auto& [k, v] : b) a[k] += v;
}

}  // namespace lintra::nn
