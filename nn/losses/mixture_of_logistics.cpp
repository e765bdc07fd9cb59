// mixture_of_logistics.cpp — the discretized logistic mixture loss, composed from autograd ops, and
// the paper's sampler (a host loop: one row per sub-pixel, K + 1 uniforms each).
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
  Tensor c = pixels.contiguous();
  const int64_t* p = c.data<int64_t>();
  const int64_t n = c.numel();
  for (int64_t i = 0; i < n; ++i) {
    LINTRA_CHECK(p[i] >= 0 && p[i] < levels,
                 "{}: pixel value {} at flat index {} is outside [0, {}] (shape {}); images must hold raw 8-bit "
                 "intensities",
                 what, p[i], i, levels - 1, shape_str(pixels.shape()));
  }
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

  const std::vector<double> p = params.contiguous().to_vector<double>();
  // Row r draws u[r, 0 … K−1] for the Gumbel-max choice and u[r, K] for the logistic.
  const std::vector<double> u = Tensor::uniform({rows, K + 1}, gen, 0.0, 1.0, DType::f64).to_vector<double>();
  std::vector<int64_t> out(size_t(rows), 0);
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = p.data() + r * 3 * K;
    const double* ur = u.data() + r * (K + 1);
    int64_t best = 0;
    double best_score = -kInf;
    for (int64_t k = 0; k < K; ++k) {
      LINTRA_CHECK(std::isfinite(row[k]) && std::isfinite(row[K + k]) && std::isfinite(row[2 * K + k]),
                   "{}: non-finite mixture parameter in row {} (component {}): the model produced NaN/inf", what, r,
                   k);
      // Gumbel-max: argmax_k (logit_k + g_k), g = −log(−log u), picks k with probability softmax(logits)_k.
      // u = 0 gives g = −inf (never picked).
      const double score = row[k] - std::log(-std::log(ur[k]));
      if (score > best_score || k == 0) {
        best_score = score;
        best = k;
      }
    }
    const double mu = row[K + best];
    const double raw = row[2 * K + best];
    const double scale = (raw > 0 ? raw : std::expm1(raw)) + 1.0001;  // elu(raw) + 1.0001
    const double v = ur[K];  // in [0, 1): v = 0 gives −inf, i.e. the first level
    const double xs = std::clamp(mu + scale * (std::log(v) - std::log1p(-v)), -1.0, 1.0);
    // Round half to even, as torch.round in the paper's sampler.
    const double level = std::nearbyint((xs + 1.0) / 2.0 * double(levels - 1));
    out[size_t(r)] = std::clamp(int64_t(level), int64_t(0), levels - 1);
  }
  return Tensor::from_vector(out, out_shape);
}

}  // namespace lintra::nn
