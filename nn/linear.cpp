#include "nn/linear.h"

#include <fmt/format.h>

#include "autograd/functional.h"
#include "nn/init.h"

namespace lintra::nn {

Linear::Linear(int64_t in_features, int64_t out_features, bool bias, Generator& init_gen)
    : in_(in_features), out_(out_features) {
  LINTRA_CHECK(in_ > 0 && out_ > 0, "Linear: features must be positive, got in={} out={}", in_, out_);
  weight_ = register_parameter("weight", Var(Tensor::empty({out_, in_})));
  if (bias) bias_ = register_parameter("bias", Var(Tensor::empty({out_})));
  init::linear_default_(weight_, bias_, init_gen);
}

Var Linear::forward(const Var& x) const { return linear(x, weight_, bias_); }

std::string Linear::extra_repr() const {
  return fmt::format("in={}, out={}{}", in_, out_, bias_.defined() ? ", bias" : "");
}

}  // namespace lintra::nn
