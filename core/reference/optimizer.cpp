// reference/optimizer.cpp — the optimizer updates (core/kernels.h adam_update, sgd_update, sum_squares)
// element by element in float64 on copies: new state out, the inputs untouched.
#include <cmath>

#include "core/reference/reference.h"

namespace lintra::reference {

AdamState adam_update(const AdamState& s, const Tensor& g_in, double beta1, double beta2, double eps, double decay,
                      double step, bool rectified) {
  std::vector<double> p = s.p.to_vector<double>(), m = s.m.to_vector<double>(), v = s.v.to_vector<double>();
  const std::vector<double> g = g_in.to_vector<double>();
  for (size_t j = 0; j < p.size(); ++j) {
    m[j] = beta1 * m[j] + (1 - beta1) * g[j];
    v[j] = beta2 * v[j] + (1 - beta2) * g[j] * g[j];
    p[j] = p[j] * decay - step * (rectified ? m[j] / (std::sqrt(v[j]) + eps) : m[j]);
  }
  const Shape& sh = s.p.shape();
  return {Tensor::from_vector(p, sh), Tensor::from_vector(m, sh), Tensor::from_vector(v, sh)};
}

SgdState sgd_update(const SgdState& s, const Tensor& g_in, double lr, double momentum, double weight_decay, bool first) {
  std::vector<double> p = s.p.to_vector<double>(), buf;
  if (s.buf.defined()) buf = s.buf.to_vector<double>();
  const std::vector<double> g = g_in.to_vector<double>();
  for (size_t j = 0; j < p.size(); ++j) {
    double d = g[j] + weight_decay * p[j];
    if (!buf.empty()) d = buf[j] = first ? d : momentum * buf[j] + d;
    p[j] -= lr * d;
  }
  const Shape& sh = s.p.shape();
  return {Tensor::from_vector(p, sh), s.buf.defined() ? Tensor::from_vector(buf, sh) : Tensor()};
}

double sum_squares(const Tensor& x) {
  double s = 0;
  for (double v : x.to_vector<double>()) s += v * v;
  return s;
}

}  // namespace lintra::reference
