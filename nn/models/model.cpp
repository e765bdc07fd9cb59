#include "nn/models/model.h"

namespace lintra::nn {

int64_t ModelBatch::batch_size() const {
  if (inputs.defined()) return inputs.size(0);
  if (features.defined()) return features.size(0);
  return 0;
}

void accumulate_sums(MetricSums& a, const MetricSums& b) {
  for (const auto& [k, v] : b) a[k] += v;
}

}  // namespace lintra::nn
