// embedding.h — a lookup table: int64 indices (…) → rows of W (…, D). W is (V, D), initialised
// N(0, 1) as PyTorch's Embedding. The backward adds gradient rows into the referenced rows only.
#pragma once

#include "nn/module.h"

namespace lintra::nn {

class Embedding : public Module {
 public:
  Embedding(int64_t num_embeddings, int64_t dim, Generator& init_gen);

  Var forward(const Tensor& indices) const;  // int64 (…) in [0, V) → (…, D)
  Var operator()(const Tensor& indices) const { return forward(indices); }

  const Var& weight() const { return weight_; }
  int64_t num_embeddings() const { return num_; }
  int64_t dim() const { return dim_; }

  std::string type_name() const override { return "Embedding"; }
  std::string extra_repr() const override;

 private:
  int64_t num_, dim_;
  Var weight_;
};

}  // namespace lintra::nn
