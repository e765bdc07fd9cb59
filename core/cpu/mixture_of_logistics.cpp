// cpu/mixture_of_logistics.cpp — sampling from a discretised logistic mixture (the paper's sampler;
// nn/losses/mixture_of_logistics.h), one row per sub-pixel, in float64:
//   k*  = argmax_k (logit_k − log(−log u_k))          (Gumbel-max: k with probability softmax(logits)_k;
//                                                      u_k = 0 gives −inf, never picked; first on ties)
//   s   = elu(raw_k*) + 1.0001,  v = u_K ∈ [0, 1)
//   x   = clamp(μ_k* + s·(log v − log(1 − v)), −1, 1)  (v = 0 gives −inf: the first level)
//   out = clamp(round_half_even((x + 1)/2·(levels − 1)), 0, levels − 1)
// A non-finite parameter is reported in `bad` (the first row, then component, in order) instead of
// thrown. O(R·K), serial: R is a generation step's batch.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/kernels.h"

namespace lintra::kernels::cpu {

namespace {

// The sampled level of one row, or −1 − k when parameter component k is not finite.
template <typename T>
int64_t sample_row(const T* row, const double* ur, int64_t K, int64_t levels) {
  int64_t best = 0;
  double best_score = -std::numeric_limits<double>::infinity();
  for (int64_t k = 0; k < K; ++k) {
    if (!(std::isfinite(double(row[k])) && std::isfinite(double(row[K + k])) && std::isfinite(double(row[2 * K + k]))))
      return -1 - k;
    const double score = double(row[k]) - std::log(-std::log(ur[k]));
    if (score > best_score || k == 0) {
      best_score = score;
      best = k;
    }
  }
  const double mu = double(row[K + best]);
  const double raw = double(row[2 * K + best]);
  const double scale = (raw > 0 ? raw : std::expm1(raw)) + 1.0001;  // elu(raw) + 1.0001
  const double v = ur[K];
  const double xs = std::clamp(mu + scale * (std::log(v) - std::log1p(-v)), -1.0, 1.0);
  const double level = std::nearbyint((xs + 1.0) / 2.0 * double(levels - 1));  // half to even
  return std::clamp(int64_t(level), int64_t(0), levels - 1);
}

}  // namespace

void sample_mol(const Tensor& params_in, const Tensor& uniforms_in, int64_t levels, Tensor& out, Tensor& bad) {
  const Tensor params = params_in.contiguous(), uniforms = uniforms_in.contiguous();
  const int64_t R = params.size(0), K = params.size(1) / 3;
  int64_t* o = out.data<int64_t>();
  int64_t* b = bad.data<int64_t>();
  const double* u = uniforms.data<double>();
  b[0] = b[1] = -1;
  dispatch_float(params.dtype(), "sample_mol", [&]<typename T>() {
    const T* p = params.data<T>();
    for (int64_t r = 0; r < R; ++r) {
      const int64_t v = sample_row<T>(p + r * 3 * K, u + r * (K + 1), K, levels);
      if (v < 0) {
        b[0] = r;
        b[1] = -1 - v;
        return;
      }
      o[r] = v;
    }
  });
}

}  // namespace lintra::kernels::cpu
