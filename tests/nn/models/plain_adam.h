// plain_adam.h — the model tests train with lintra's own Adam (train/optim, a library below nn's
// tests' reach only through lintra_optim), without weight decay or clipping: plain Kingma & Ba; and
// with its plain SGD (no momentum), where a GPU's rounding must not be amplified (test_on_device.cpp).
#pragma once

#include <memory>

#include "nn/module.h"
#include "train/optim/optimizer.h"

namespace lintra::testing {

inline std::unique_ptr<train::Optimizer> plain_optimizer(const nn::Module& m, const char* name, double lr) {
  std::vector<train::NamedParam> params;
  for (const auto& [param_name, v] : m.named_parameters()) params.push_back({param_name, v});
  train::OptimizerOptions o;
  o.name = name;
  o.lr = lr;
  o.weight_decay = 0;
  o.max_grad_norm = 0;
  return train::make_optimizer(std::move(params), o);
}

inline std::unique_ptr<train::Optimizer> plain_adam(const nn::Module& m, double lr) {
  return plain_optimizer(m, "adam", lr);
}
inline std::unique_ptr<train::Optimizer> plain_sgd(const nn::Module& m, double lr) {
  return plain_optimizer(m, "sgd", lr);
}

}  // namespace lintra::testing
