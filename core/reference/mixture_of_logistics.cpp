// reference/mixture_of_logistics.cpp — the mixture-of-logistics sampler (core/kernels.h sample_mol)
// written from its definition: the component maximising logit − log(−log u), then the logistic inverse
// CDF at v, clamped to [−1, 1] and rounded half to even onto the levels.
#include <algorithm>
#include <cmath>

#include "core/reference/reference.h"

namespace lintra::reference {

Tensor sample_mol(const Tensor& params, const Tensor& uniforms, int64_t levels) {
  const int64_t R = params.size(0), K = params.size(1) / 3;
  const std::vector<double> p = params.to_vector<double>(), u = uniforms.to_vector<double>();
  std::vector<int64_t> out(static_cast<size_t>(R));
  for (int64_t r = 0; r < R; ++r) {
    auto at = [&](int64_t part, int64_t k) { return p[size_t(r * 3 * K + part * K + k)]; };
    int64_t best = 0;
    for (int64_t k = 1; k < K; ++k) {
      const double gk = at(0, k) - std::log(-std::log(u[size_t(r * (K + 1) + k)]));
      const double gb = at(0, best) - std::log(-std::log(u[size_t(r * (K + 1) + best)]));
      if (gk > gb) best = k;
    }
    const double raw = at(2, best);
    const double s = (raw > 0 ? raw : std::exp(raw) - 1) + 1.0001;
    const double v = u[size_t(r * (K + 1) + K)];
    const double x = std::clamp(at(1, best) + s * std::log(v / (1 - v)), -1.0, 1.0);
    out[size_t(r)] = std::clamp<int64_t>(int64_t(std::nearbyint((x + 1) / 2 * double(levels - 1))), 0, levels - 1);
  }
  return Tensor::from_vector(out, {R});
}

}  // namespace lintra::reference
