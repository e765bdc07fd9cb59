// layer_norm.h — y = (x − mean)/√(var + eps)·γ + β over the last dim D (biased variance), as
// PyTorch's LayerNorm; γ ("weight") starts at 1 and β ("bias") at 0. Fused kernel, O(rows·D).
#pragma once

#include "nn/module.h"

namespace lintra::nn {

class LayerNorm : public Module {
 public:
  explicit LayerNorm(int64_t dim, double eps = 1e-5);

  Var forward(const Var& x) const;  // (…, D) → (…, D)
  Var operator()(const Var& x) const { return forward(x); }

  const Var& weight() const { return weight_; }
  const Var& bias() const { return bias_; }
  double eps() const { return eps_; }

  std::string type_name() const override { return "LayerNorm"; }
  std::string extra_repr() const override;

 private:
  int64_t dim_;
  double eps_;
  Var weight_, bias_;
};

}  // namespace lintra::nn
