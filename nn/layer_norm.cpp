#include "nn/layer_norm.h"

#include <fmt/format.h>

#include "autograd/functional.h"

namespace lintra::nn {

LayerNorm::LayerNorm(int64_t dim, double eps) : dim_(dim), eps_(eps) {
  LINTRA_CHECK(dim_ > 0 && eps_ >= 0, "LayerNorm: need dim > 0 and eps >= 0, got dim={} eps={}", dim_, eps_);
  weight_ = register_parameter("weight", Var(Tensor::ones({dim_})));
  bias_ = register_parameter("bias", Var(Tensor::zeros({dim_})));
}

Var LayerNorm::forward(const Var& x) const {
  LINTRA_CHECK(x.dim() >= 1 && x.shape().back() == dim_, "LayerNorm({}): input {} must end in dim {}", dim_,
               shape_str(x.shape()), dim_);
  return layer_norm(x, weight_, bias_, eps_);
}

std::string LayerNorm::extra_repr() const { return fmt::format("dim={}, eps={:g}", dim_, eps_); }

}  // namespace lintra::nn
