#include "train/gradient_averager.h"

namespace lintra::train {

void AllReduceAverager::average(const std::vector<NamedParam>& params) {
  std::vector<double> has_grad(params.size());
  for (size_t i = 0; i < params.size(); ++i) has_grad[i] = params[i].var.grad().defined() ? 1 : 0;
  comm_.max(has_grad);
  std::vector<Tensor> grads;
  for (size_t i = 0; i < params.size(); ++i) {
    if (has_grad[i] == 0) continue;
    Var v = params[i].var;
    if (!v.grad().defined()) v.set_grad(Tensor::zeros(v.shape(), v.dtype()));
    if (!v.grad().is_contiguous()) v.set_grad(v.grad().contiguous());
    grads.push_back(v.grad());
  }
  sum_.sum(grads);
}

}  // namespace lintra::train
