// reference/masked_softmax.cpp — softmax among the allowed entries of each last-dim row (reference.h),
// in float64 over multi-indices: exp(x_i − m)/Σ_allowed exp(x_j − m), 0 where not allowed or on empty rows.
#include <cmath>
#include <limits>

#include "core/reference/reference.h"

namespace lintra::reference {

Tensor masked_softmax(const Tensor& x_in, const Tensor& allowed_in) {
  const Tensor x = x_in.to(DType::f64).contiguous();
  const Tensor a = allowed_in.expand(x.shape()).contiguous();
  const int64_t S = x.shape().back(), rows = S == 0 ? 0 : x.numel() / S;
  std::vector<double> xv = x.to_vector<double>(), y(xv.size(), 0.0);
  const std::vector<uint8_t> av = a.to_vector<uint8_t>();
  for (int64_t r = 0; r < rows; ++r) {
    double m = -std::numeric_limits<double>::infinity();
    bool any = false;
    for (int64_t i = 0; i < S; ++i)
      if (av[size_t(r * S + i)]) any = true, m = std::max(m, xv[size_t(r * S + i)]);
    if (!any) continue;
    if (std::isinf(m)) m = 0;
    double sum = 0;
    for (int64_t i = 0; i < S; ++i)
      if (av[size_t(r * S + i)]) sum += std::exp(xv[size_t(r * S + i)] - m);
    for (int64_t i = 0; i < S; ++i)
      if (av[size_t(r * S + i)]) y[size_t(r * S + i)] = std::exp(xv[size_t(r * S + i)] - m) / sum;
  }
  return Tensor::from_vector(y, x.shape());
}

}  // namespace lintra::reference
