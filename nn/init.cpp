#include "nn/init.h"

#include <cmath>

#include "core/error.h"
#include "core/tensor.h"

namespace lintra::nn::init {

std::pair<int64_t, int64_t> fan_in_out(const Shape& s) {
  LINTRA_CHECK(s.size() >= 2, "init: fan-in/fan-out need a weight with at least 2 dims, got {}", shape_str(s));
  int64_t receptive = 1;
  for (size_t i = 2; i < s.size(); ++i) receptive *= s[i];
  return {s[1] * receptive, s[0] * receptive};
}

void uniform_(Var& v, Generator& gen, double low, double high) {
  v.set_data(Tensor::uniform(v.shape(), gen, low, high, v.dtype(), v.data().device()));
}

void normal_(Var& v, Generator& gen, double mean, double std) {
  v.set_data(Tensor::normal(v.shape(), gen, mean, std, v.dtype(), v.data().device()));
}

void constant_(Var& v, double value) { v.set_data(Tensor::full(v.shape(), value, v.dtype(), v.data().device())); }

void kaiming_uniform_(Var& weight, Generator& gen, double a) {
  auto [fan_in, _] = fan_in_out(weight.shape());
  LINTRA_CHECK(fan_in > 0, "kaiming_uniform_: fan_in of {} is 0", shape_str(weight.shape()));
  const double gain = std::sqrt(2.0 / (1.0 + a * a));
  const double bound = gain * std::sqrt(3.0 / double(fan_in));
  uniform_(weight, gen, -bound, bound);
}

void xavier_uniform_(Var& weight, Generator& gen, double gain) {
  auto [fan_in, fan_out] = fan_in_out(weight.shape());
  LINTRA_CHECK(fan_in + fan_out > 0, "xavier_uniform_: empty weight {}", shape_str(weight.shape()));
  const double bound = gain * std::sqrt(6.0 / double(fan_in + fan_out));
  uniform_(weight, gen, -bound, bound);
}

void linear_default_(Var& weight, Var& bias, Generator& gen) {
  kaiming_uniform_(weight, gen, std::sqrt(5.0));
  if (bias.defined()) {
    auto [fan_in, _] = fan_in_out(weight.shape());
    const double bound = fan_in > 0 ? 1.0 / std::sqrt(double(fan_in)) : 0.0;
    uniform_(bias, gen, -bound, bound);
  }
}

}  // namespace lintra::nn::init
