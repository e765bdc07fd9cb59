// radam.cpp — RAdam (Liu et al., ICLR 2020) exactly as the paper's experiment code (PAPER.md §2.1):
//   1. clip each parameter's gradient to L2 norm max_grad_norm (per tensor, inside step);
//   2. v ← β2·v + (1−β2)·g²,  m ← β1·m + (1−β1)·g;
//   3. ρ∞ = 2/(1−β2) − 1,  ρₜ = ρ∞ − 2t·β2ᵗ/(1−β2ᵗ);
//   4. ρₜ ≥ 5: p ← p − lr·wd·p;  p ← p − lr·r·m/(√v + ε) with
//        r = √((1−β2ᵗ)(ρₜ−4)(ρₜ−2)ρ∞ / ((ρ∞−4)(ρ∞−2)ρₜ)) / (1−β1ᵗ);
//      otherwise (the SGD-style step): p ← p − lr·wd·p;  p ← p − lr·m/(1−β1ᵗ).
// Weight decay is decoupled (p ← p − wd·lr·p). Steps 2 and 4 are the kernel adam_update
// (core/cpu/optimizer.cpp), on the parameters' device.
#include <cmath>
#include <memory>

#include "core/ops.h"
#include "train/optim/adam_family.h"

namespace lintra::train {

namespace {

class RAdam : public AdamFamily {
 public:
  using AdamFamily::AdamFamily;
  std::string type() const override { return "radam"; }

 protected:
  void update(size_t i, Tensor& p, const Tensor& g) override {
    const double t = double(step_count_);
    const double b1 = o_.beta1, b2 = o_.beta2;
    const double b2t = std::pow(b2, t);
    const double rho_inf = 2 / (1 - b2) - 1;
    const double rho = rho_inf - 2 * t * b2t / (1 - b2t);
    const bool rectified = rho >= 5;
    const double step_size =
        rectified ? std::sqrt((1 - b2t) * (rho - 4) / (rho_inf - 4) * (rho - 2) / rho * rho_inf / (rho_inf - 2)) /
                        (1 - std::pow(b1, t))
                  : 1.0 / (1 - std::pow(b1, t));
    ops::AdamStep s{.beta1 = b1, .beta2 = b2, .eps = o_.eps, .decay = 1 - o_.weight_decay * lr_,
                    .step = step_size * lr_, .rectified = rectified};
    ops::adam_update_(p, g, slot("exp_avg", i), slot("exp_avg_sq", i), s);
  }
};

}  // namespace

std::unique_ptr<Optimizer> make_radam(std::vector<NamedParam> params, const OptimizerOptions& o) {
  return std::make_unique<RAdam>(std::move(params), o);
}

}  // namespace lintra::train
