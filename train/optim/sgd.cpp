// sgd.cpp — SGD with momentum (PyTorch's form): b ← μ·b + g (+ wd·p), p ← p − lr·b; the kernel
// sgd_update (core/cpu/optimizer.cpp), on the parameters' device.
#include <memory>

#include "core/ops.h"
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
    Tensor none;
    ops::sgd_update_(p, g, momentum_ > 0 ? slot("momentum_buffer", i) : none, lr_, momentum_, weight_decay_,
                     step_count_ == 1);
  }

 private:
  double momentum_, weight_decay_;
};

}  // namespace

std::unique_ptr<Optimizer> make_sgd(std::vector<NamedParam> params, const OptimizerOptions& o) {
  return std::make_unique<Sgd>(std::move(params), o);
}

}  // namespace lintra::train
