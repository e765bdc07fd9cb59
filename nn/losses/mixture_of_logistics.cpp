// mixture_of_logistics.cpp — the discretized logistic mixture loss, composed from autograd ops, and
// the paper's sampler (one row per sub-pixel, K + 1 uniforms each: the kernel sample_mol,
// core/cpu/mixture_of_logistics.cpp).
#include "nn/losses/mixture_of_logistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace lintra::nn {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEdge = 0.999;  // |x| beyond this is the first or last bin (x = ±1 exactly)

bool is_float(DType t) { return t == DType::f32 || t == DType::f64; }

// K from a (…, 3K) parameter shape, with the checks shared by the loss and the sampler.
int64_t mixtures_of(const Shape& shape, DType dtype, const char* what) {
  LINTRA_CHECK(is_float(dtype), "{}: mixture parameters must be float32 or float64, got {}", what, dtype);
  LINTRA_CHECK(!shape.empty(), "{}: mixture parameters must have a last dim of 3K, got a 0-d tensor", what);
  const int64_t last = shape.back();
  LINTRA_CHECK(last > 0 && last % 3 == 0,
               "{}: the last dim of the mixture parameters must be 3K (K logits, K means, K log-scales), got {} "
               "in shape {}",
               what, last, shape_str(shape));
  return last / 3;
}

}  // namespace

void check_pixel_values(const Tensor& pixels, int64_t levels, const char* what) {
  LINTRA_CHECK(pixels.defined(), "{}: pixels are undefined", what);
  LINTRA_CHECK(pixels.dtype() == DType::i64, "{}: pixels must be int64 values in [0, {}], got {}", what, levels - 1,
               pixels.describe());
  const ops::IndexRange r = ops::index_range(pixels, 0, levels);
  LINTRA_CHECK(r.outside == 0,
               "{}: pixel value {} at flat index {} is outside [0, {}] (shape {}); images must hold raw 8-bit "
               "intensities",
               what, r.value, r.position, levels - 1, shape_str(pixels.shape()));
}

Var mixture_of_logistics_nll(const Var& params, const Tensor& target, Reduction reduction,
                             const MixtureOfLogisticsOptions& options) {
  constexpr const char* what = "mixture_of_logistics_nll";
  LINTRA_CHECK(params.defined(), "{}: params are undefined", what);
  LINTRA_CHECK(options.levels >= 2, "{}: levels must be at least 2, got {}", what, options.levels);
  const int64_t K = mixtures_of(params.shape(), params.dtype(), what);
  Shape positions(params.shape().begin(), params.shape().end() - 1);
  LINTRA_CHECK(target.defined() && target.shape() == positions,
               "{}: target must have the parameters' shape without the last dim, {} for params {}, got {}", what,
               shape_str(positions), shape_str(params.shape()), target.defined() ? target.describe() : "undefined");
  check_pixel_values(target, options.levels, what);

  const DType dt = params.dtype();
  const double half_bin = 1.0 / double(options.levels - 1);  // bins are 2/(levels − 1) wide in [−1, 1]
  Var logits = narrow(params, -1, 0, K);
  Var means = narrow(params, -1, K, K);
  Var log_s = clamp(narrow(params, -1, 2 * K, K), options.log_scale_min, kInf);

  // x = v / 127.5 − 1 (for 256 levels), as a (…, 1) constant broadcast over the components.
  Tensor x = ops::sub(ops::mul(target.to(dt), 2.0 * half_bin), 1.0).unsqueeze(-1);
  Var centered = Var(x) - means;  // (…, K)
  Var inv_s = exp(-log_s);
  Var plus_in = inv_s * (centered + half_bin);
  Var min_in = inv_s * (centered - half_bin);
  Var mid_in = inv_s * centered;

  Var log_cdf_plus = log_sigmoid(plus_in);         // log σ(plus_in): the first bin
  Var log_one_minus_cdf_min = -softplus(min_in);   // log(1 − σ(min_in)): the last bin
  Var cdf_delta = sigmoid(plus_in) - sigmoid(min_in);
  Var log_pdf_mid = mid_in - log_s - 2.0 * softplus(mid_in) - std::log(double(options.levels - 1) / 2.0);

  const Shape& full = cdf_delta.shape();
  Tensor delta_ok = ops::gt(cdf_delta.data(), options.min_cdf_delta);
  Tensor is_last = ops::gt(x, kEdge).expand(full);
  Tensor is_first = ops::lt(x, -kEdge).expand(full);
  Var interior = where(delta_ok, log(clamp(cdf_delta, 1e-12, kInf)), log_pdf_mid);
  Var log_probs = where(is_first, log_cdf_plus, where(is_last, log_one_minus_cdf_min, interior));
  Var nll = -logsumexp(log_probs + log_softmax(logits, -1), {-1});  // (…)

  switch (reduction) {
    case Reduction::mean: return mean(nll);
    case Reduction::sum: return sum(nll);
    case Reduction::none: return nll;
  }
  LINTRA_FAIL("{}: unknown reduction", what);
}

Tensor sample_mol(const Tensor& params, Generator& gen, int64_t levels) {
  constexpr const char* what = "sample_mol";
  LINTRA_CHECK(params.defined(), "{}: params are undefined", what);
  LINTRA_CHECK(levels >= 2, "{}: levels must be at least 2, got {}", what, levels);
  const int64_t K = mixtures_of(params.shape(), params.dtype(), what);
  const int64_t rows = params.numel() / (3 * K);
  Shape out_shape(params.shape().begin(), params.shape().end() - 1);

  // Row r draws u[r, 0 … K−1] for the Gumbel-max choice and u[r, K] for the logistic.
  const Tensor u = Tensor::uniform({rows, K + 1}, gen, 0.0, 1.0, DType::f64, params.device());
  const ops::MixtureSample s = ops::sample_mol(params.reshape({rows, 3 * K}), u, levels);
  LINTRA_CHECK(s.bad_row < 0, "{}: non-finite mixture parameter in row {} (component {}): the model produced NaN/inf",
               what, s.bad_row, s.bad_component);
  return s.values.reshape(out_shape);
}

}  // namespace lintra::nn
