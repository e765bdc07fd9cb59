// dropout.h — inverted dropout: in training each element is zeroed with probability p and the
// rest scaled by 1/(1 − p); the identity in eval mode or when p = 0. The module owns its random
// stream (a Generator, registered as "generator" so checkpoints can save its position).
#pragma once

#include "nn/module.h"

namespace lintra::nn {

class Dropout : public Module {
 public:
  Dropout(double p, Generator gen);

  Var forward(const Var& x);  // draws a mask from the generator when training and p > 0
  Var operator()(const Var& x) { return forward(x); }
  // The same draw fused with the op before or after it (one pass, the same bits as the two ops):
  Var after_relu(const Var& x);                           // forward(relu(x))
  Var add_to(const Var& residual, const Var& x);          // residual + forward(x)

  double p() const { return p_; }
  Generator& generator() { return gen_; }

  std::string type_name() const override { return "Dropout"; }
  std::string extra_repr() const override;

 private:
  double p_;
  Generator gen_;
};

}  // namespace lintra::nn
