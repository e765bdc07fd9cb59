// adam.cpp — Adam with decoupled weight decay (AdamW, Loshchilov & Hutter):
//   m ← β1·m + (1−β1)·g,  v ← β2·v + (1−β2)·g²,  p ← p − lr·wd·p,
//   p ← p − lr·(√(1−β2ᵗ)/(1−β1ᵗ))·m/(√v + ε)
// (the bias-corrected step of the paper's code's AdamW; ε added to √v as there). The elementwise update
// is the kernel adam_update (core/cpu/optimizer.cpp), on the parameters' device.
#include <cmath>
#include <memory>

#include "core/ops.h"
#include "train/optim/adam_family.h"

namespace lintra::train {

namespace {

class Adam : public AdamFamily {
 public:
  using AdamFamily::AdamFamily;
  std::string type() const override { return "adam"; }

 protected:
  void update(size_t i, Tensor& p, const Tensor& g) override {
    const double t = double(step_count_);
    const double step_size = lr_ * std::sqrt(1 - std::pow(o_.beta2, t)) / (1 - std::pow(o_.beta1, t));
    ops::AdamStep s{.beta1 = o_.beta1, .beta2 = o_.beta2, .eps = o_.eps, .decay = 1 - lr_ * o_.weight_decay,
                    .step = step_size, .rectified = true};
    ops::adam_update_(p, g, slot("exp_avg", i), slot("exp_avg_sq", i), s);
  }
};

}  // namespace

std::unique_ptr<Optimizer> make_adam(std::vector<NamedParam> params, const OptimizerOptions& o) {
  return std::make_unique<Adam>(std::move(params), o);
}

}  // namespace lintra::train
