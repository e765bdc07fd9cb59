#include "nn/models/image_generation.h"

#include <vector>

#include "nn/inference_scope.h"
#include "nn/models/image_recurrent_engine.h"

namespace lintra::nn {

namespace {

// The pixel buffer int64 (n, length) on `device` (the model's), with the prefix (or a zero first pixel)
// written in; returns the number of fixed leading pixels. Sampled columns are written into it by copy_.
int64_t start_buffer(Tensor& buf, int64_t n, int64_t length, const Tensor& prefix, Device device, const char* what) {
  LINTRA_CHECK(n >= 1, "{}: the number of images must be positive, got {}", what, n);
  LINTRA_CHECK(length >= 1, "{}: the image length must be positive, got {}", what, length);
  buf = Tensor::zeros({n, length}, DType::i64, device);
  if (!prefix.defined()) return 1;  // pixel 0 = 0, the paper's zero-initialised buffer
  LINTRA_CHECK(prefix.dim() == 2 && prefix.dtype() == DType::i64 && prefix.size(0) == n && prefix.size(1) >= 1 &&
                   prefix.size(1) <= length,
               "{}: prefix must be int64 (n={}, p) with 1 <= p <= length={}, got {}", what, n, length,
               prefix.describe());
  check_pixel_values(prefix, ImageModel::kLevels, what);
  const int64_t p = prefix.size(1);
  buf.narrow(1, 0, p).copy_(prefix);  // from the prefix's device, if another
  return p;
}

// Column t of the buffer as an int64 (n) tensor on the buffer's device.
Tensor column(const Tensor& buf, int64_t t) { return buf.select(1, t).contiguous(); }

}  // namespace

Tensor generate_recurrent(ImageModel& model, int64_t n, int64_t length, Generator& gen, const Tensor& prefix,
                          RecurrentBackend backend, EngineWeights weights) {
  constexpr const char* what = "generate_recurrent";
  LINTRA_CHECK(model.has_recurrent(),
               "{}: the model's attention has no recurrent form; use generate_recompute (the paper's protocol for "
               "softmax without a cache and for reformer)",
               what);
  Tensor buf;
  const int64_t fixed = start_buffer(buf, n, length, prefix, model.device(), what);
  InferenceScope scope(model);
  const std::string why_not = backend == RecurrentBackend::modules ? "modules asked for"
                                                                    : ImageRecurrentEngine::unsupported_reason(model);
  LINTRA_CHECK(backend != RecurrentBackend::engine || why_not.empty(), "{}: the engine cannot run this model: {}", what,
               why_not);
  // Feeding pixel t gives the distribution of pixel t + 1; the last pixel is never fed.
  auto run = [&](auto&& params_after) {  // params_after(t): (n, 3K) after feeding column t
    for (int64_t t = 0; t + 1 < length; ++t) {
      Tensor params = params_after(t);
      if (t + 1 >= fixed) buf.select(1, t + 1).copy_(sample_mol(params, gen, ImageModel::kLevels));
    }
    return buf;
  };
  if (why_not.empty()) {  // the engine: a CPU model, so the buffer is on the host
    ImageRecurrentEngine engine(model, n, length, 0, weights);
    std::vector<float> params(size_t(n * engine.param_dim()));
    return run([&](int64_t t) {
      const std::vector<int64_t> pixels = column(buf, t).to_vector<int64_t>();
      engine.step(pixels.data(), t, params.data());
      return Tensor::from_vector(params, {n, engine.param_dim()});
    });
  }
  std::vector<RecurrentState> states = model.initial_state();
  return run([&](int64_t t) { return model.step(column(buf, t), t, states).data(); });
}

Tensor generate_recompute(ImageModel& model, int64_t n, int64_t length, Generator& gen, const Tensor& prefix) {
  constexpr const char* what = "generate_recompute";
  Tensor buf;
  const int64_t fixed = start_buffer(buf, n, length, prefix, model.device(), what);
  InferenceScope scope(model);
  for (int64_t t = fixed; t < length; ++t) {
    // The whole prefix 0 … t − 1 through the batch model; its last row predicts pixel t.
    Var params = model.mixture_params(buf.narrow(1, 0, t).contiguous());  // (n, t, 3K)
    Tensor last = params.data().select(1, t - 1);                         // (n, 3K)
    buf.select(1, t).copy_(sample_mol(last, gen, ImageModel::kLevels));
  }
  return buf;
}

}  // namespace lintra::nn
