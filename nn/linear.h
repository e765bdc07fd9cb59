// linear.h — y = x·Wᵀ + b over the last dim: x (…, in) → y (…, out). W is (out, in), b is (out).
// Initialised as PyTorch's Linear (nn/init.h): W, b ~ U(−1/√in, 1/√in). Cost O(rows·in·out).
#pragma once

#include "nn/module.h"

namespace lintra::nn {

class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias, Generator& init_gen);

  Var forward(const Var& x) const;  // (…, in) → (…, out)
  Var operator()(const Var& x) const { return forward(x); }

  const Var& weight() const { return weight_; }
  const Var& bias() const { return bias_; }  // undefined without bias
  int64_t in_features() const { return in_; }
  int64_t out_features() const { return out_; }

  std::string type_name() const override { return "Linear"; }
  std::string extra_repr() const override;

 private:
  int64_t in_, out_;
  Var weight_, bias_;
};

}  // namespace lintra::nn
