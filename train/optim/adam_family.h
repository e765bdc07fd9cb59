// adam_family.h — what Adam (adam.cpp) and RAdam (radam.cpp) share: the first- and second-moment
// slots exp_avg (m) and exp_avg_sq (v), zero at the start, and the hyperparameters a checkpoint
// records (lr, β1, β2, ε, weight decay, per-tensor clipping). Each subclass writes its own update.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "train/optim/optimizer.h"

namespace lintra::train {

class AdamFamily : public Optimizer {
 public:
  AdamFamily(std::vector<NamedParam> params, const OptimizerOptions& o)
      : Optimizer(std::move(params), o.lr, o.max_grad_norm), o_(o) {
    add_slot("exp_avg");
    add_slot("exp_avg_sq");
  }
  std::map<std::string, double> hparams() const override {
    return {{"lr", lr_},     {"beta1", o_.beta1},  {"beta2", o_.beta2},
            {"eps", o_.eps}, {"weight_decay", o_.weight_decay}, {"max_grad_norm", max_grad_norm_}};
  }

 protected:
  OptimizerOptions o_;
};

}  // namespace lintra::train
