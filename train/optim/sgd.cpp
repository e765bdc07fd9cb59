// sgd.cpp — SGD with momentum (PyTorch's form): b ← μ·b + g (+ wd·p), p ← p − lr·b.
#include <memory>

#include "train/optim/optimizer.h"

namespace lintra::train {

namespace {

class Sgd : public Optimizer {
 public:
  Sgd(std::vector<NamedParam> params, const OptimizerOptions& o)
      : Optimizer(std::move(params), o.lr, o.max_grad_norm), momentum_(o.momentum), weight_decay_(o.weight_decay) {
    if (momentum_ > 0) add_slot("momentum_buffer");
  }
  std::string type() const override { return "sgd"; }
  std::map<std::string, double> hparams() const override {
    return {{"lr", lr_}, {"momentum", momentum_}, {"weight_decay", weight_decay_}, {"max_grad_norm", max_grad_norm_}};
  }

 protected:
  void update(size_t i, Tensor& p, const Tensor& g) override {
    dispatch_float(p.dtype(), "sgd", [&]<typename T>() {
      T* pp = p.data<T>();
      const T* gp = g.data<T>();
      T* bp = momentum_ > 0 ? slot("momentum_buffer", i).template data<T>() : nullptr;
      const T lr = T(lr_), mu = T(momentum_), wd = T(weight_decay_);
      const bool first = step_count_ == 1;
      for (int64_t j = 0; j < p.numel(); ++j) {
        T d = gp[j] + wd * pp[j];
        if (bp) {
          bp[j] = first ? d : mu * bp[j] + d;
          d = bp[j];
        }
        pp[j] -= lr * d;
      }
    });
  }

 private:
  double momentum_, weight_decay_;
};

}  // namespace

std::unique_ptr<Optimizer> make_sgd(std::vector<NamedParam> params, const OptimizerOptions& o) {
  return std::make_unique<Sgd>(std::move(params), o);
}

}  // namespace lintra::train
