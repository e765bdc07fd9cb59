// optimizer.h — the optimizer base: named parameters, named per-parameter state slots (which the
// checkpoint stores as /optimizer/<slot>/<parameter tree>), the learning rate, and gradient-norm
// clipping. One optimizer per file: sgd.cpp, adam.cpp, radam.cpp.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "autograd/var.h"

namespace lintra::train {

struct NamedParam {
  std::string name;  // dotted module path, e.g. "encoder.layers.0.attention.query.weight"
  Var var;
};

class Optimizer {
 public:
  // max_grad_norm > 0: each parameter's gradient is clipped to that L2 norm inside step(), per tensor
  // (the paper's RAdam does this), before update() sees it.
  Optimizer(std::vector<NamedParam> params, double lr, double max_grad_norm = 0);
  virtual ~Optimizer() = default;
  virtual std::string type() const = 0;
  virtual std::map<std::string, double> hparams() const = 0;

  // One update of every parameter that has a gradient (under NoGradGuard; bumps the versions).
  void step();
  void zero_grad();
  double lr() const { return lr_; }
  void set_lr(double lr) { lr_ = lr; }
  int64_t step_count() const { return step_count_; }

  // State for checkpoints: slot name → (parameter name, tensor) in parameter order.
  std::map<std::string, std::vector<std::pair<std::string, Tensor>>> state() const;
  // Restores state() output; throws naming every slot/parameter that is missing or mismatched.
  void load_state(int64_t step_count, const std::map<std::string, std::vector<std::pair<std::string, Tensor>>>& slots);
  const std::vector<NamedParam>& params() const { return params_; }

 protected:
  // Updates parameter i in place (p is its data, contiguous), given its (clipped) gradient g.
  virtual void update(size_t i, Tensor& p, const Tensor& g) = 0;
  // Declares a slot (zero-initialised like each parameter), e.g. "exp_avg".
  void add_slot(const std::string& name);
  Tensor& slot(const std::string& name, size_t i) { return slots_.at(name)[i]; }

  std::vector<NamedParam> params_;
  double lr_;
  double max_grad_norm_ = 0;
  int64_t step_count_ = 0;

 private:
  std::map<std::string, std::vector<Tensor>> slots_;
};

// Scales the gradients so that their L2 norm taken together (the global norm) is at most max_norm, as
// torch.nn.utils.clip_grad_norm_; returns the total norm before clipping. (Per-tensor clipping is the
// optimizer's max_grad_norm.)
double clip_global_grad_norm_(const std::vector<NamedParam>& params, double max_norm);
double global_grad_norm(const std::vector<NamedParam>& params);

struct OptimizerOptions {
  std::string name = "radam";  // sgd | adam | radam
  double lr = 1e-3;
  double momentum = 0.0;        // sgd
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;  // adam, radam
  double weight_decay = 0.0;    // decoupled: p ← p − lr·wd·p (adam, radam); L2 for sgd
  double max_grad_norm = 0.0;   // per-tensor clipping inside step (radam as the paper's code); 0 = off
};

std::unique_ptr<Optimizer> make_optimizer(std::vector<NamedParam> params, const OptimizerOptions& options);

}  // namespace lintra::train
