// plain_adam.h — the model tests train with lintra's own Adam (train/optim, a library below nn's
// tests' reach only through lintra_optim), without weight decay or clipping: plain Kingma & Ba.
#pragma once

#include <memory>

#include "nn/module.h"
#include "train/optim/optimizer.h"

namespace lintra::testing {

inline std::unique_ptr<train::Optimizer> plain_adam(const nn::Module& m, double lr) {
  std::vector<train::NamedParam> params;
  for (const auto& [name, v] : m.named_parameters()) params.push_back({name, v});
  train::OptimizerOptions o;
  o.name = "adam";
  o.lr = lr;
  o.weight_decay = 0;
  o.max_grad_norm = 0;
  return train::make_optimizer(std::move(params), o);
}

}  // namespace lintra::testing
