#include "nn/embedding.h"

#include <fmt/format.h>

#include "autograd/functional.h"
#include "nn/init.h"

namespace lintra::nn {

Embedding::Embedding(int64_t num_embeddings, int64_t dim, Generator& init_gen) : num_(num_embeddings), dim_(dim) {
  LINTRA_CHECK(num_ > 0 && dim_ > 0, "Embedding: sizes must be positive, got V={} D={}", num_, dim_);
  weight_ = register_parameter("weight", Var(Tensor::empty({num_, dim_})));
  init::normal_(weight_, init_gen, 0.0, 1.0);
}

Var Embedding::forward(const Tensor& indices) const {
  LINTRA_CHECK(indices.dtype() == DType::i64, "Embedding: indices must be int64, got {}", indices.describe());
  return embedding(weight_, indices);
}

std::string Embedding::extra_repr() const { return fmt::format("num={}, dim={}", num_, dim_); }

}  // namespace lintra::nn
