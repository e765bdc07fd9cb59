#include "nn/models/image_engine_score.h"

#include <algorithm>
#include <vector>

#include "nn/inference_scope.h"
#include "nn/losses/mixture_of_logistics.h"

namespace lintra::nn {

MetricSums engine_nll_sums(ImageModel& model, const Tensor& images, EngineWeights weights) {
  LINTRA_CHECK(images.defined() && images.dim() == 2 && images.dtype() == DType::i64 && images.size(1) >= 2,
               "engine_nll_sums: expected int64 pixels (B, L) with L >= 2, got {}",
               images.defined() ? images.describe() : "undefined");
  check_pixel_values(images, ImageModel::kLevels, "engine_nll_sums");
  const int64_t B = images.size(0), L = images.size(1);
  InferenceScope scope(model);
  ImageRecurrentEngine engine(model, B, L - 1, 0, weights);
  const int64_t P = engine.param_dim();
  const Tensor host = images.to(Device::cpu).contiguous();
  const std::vector<int64_t> px = host.to_vector<int64_t>();
  std::vector<float> params(size_t(B * (L - 1) * P)), step(size_t(B * P));
  std::vector<int64_t> column(static_cast<size_t>(B));
  for (int64_t t = 0; t + 1 < L; ++t) {
    for (int64_t b = 0; b < B; ++b) column[size_t(b)] = px[size_t(b * L + t)];
    engine.step(column.data(), t, step.data());
    for (int64_t b = 0; b < B; ++b)
      std::copy_n(step.begin() + b * P, P, params.begin() + (b * (L - 1) + t) * P);
  }
  const Tensor target = host.narrow(1, 1, L - 1).contiguous();
  const Var nll = mixture_of_logistics_nll(Var(Tensor::from_vector(params, {B, L - 1, P})), target, Reduction::none,
                                           model.loss_options());
  double sum = 0;  // in double: B·(L − 1) terms
  for (float v : nll.data().to_vector<float>()) sum += double(v);
  return {{"nll_sum", sum}, {"count", double(B * (L - 1))}};
}

}  // namespace lintra::nn
