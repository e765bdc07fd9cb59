// adam.cpp — Adam with decoupled weight decay (AdamW, Loshchilov & Hutter):
//   m ← β1·m + (1−β1)·g,  v ← β2·v + (1−β2)·g²,  p ← p − lr·wd·p,
//   p ← p − lr·(√(1−β2ᵗ)/(1−β1ᵗ))·m/(√v + ε)
// (the bias-corrected step of the paper's code's AdamW; ε added to √v as there).
#include <cmath>
#include <memory>

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
    dispatch_float(p.dtype(), "adam", [&]<typename T>() {
      T* pp = p.data<T>();
      const T* gp = g.data<T>();
      T* m = slot("exp_avg", i).template data<T>();
      T* v = slot("exp_avg_sq", i).template data<T>();
      const T b1 = T(o_.beta1), b2 = T(o_.beta2), eps = T(o_.eps), decay = T(1 - lr_ * o_.weight_decay);
      const T ss = T(step_size);
#pragma omp simd
      for (int64_t j = 0; j < p.numel(); ++j) {
        m[j] = b1 * m[j] + (1 - b1) * gp[j];
        v[j] = b2 * v[j] + (1 - b2) * gp[j] * gp[j];
        pp[j] = pp[j] * decay - ss * m[j] / (std::sqrt(v[j]) + eps);
      }
    });
  }
};

}  // namespace

std::unique_ptr<Optimizer> make_adam(std::vector<NamedParam> params, const OptimizerOptions& o) {
  return std::make_unique<Adam>(std::move(params), o);
}

}  // namespace lintra::train
