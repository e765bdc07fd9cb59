#include "train/optim/optimizer.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "autograd/node.h"
#include "core/ops.h"

namespace lintra::train {

namespace {
// Σ g² in float64, over fixed blocks combined in block order (the kernel sum_squares): the result does
// not depend on how threads are scheduled (bitwise-reproducible training needs that: clipping uses it).
double sum_squares(const Tensor& g) { return ops::sum_squares(g); }
// g ← f·g in place (the scale is rounded to g's dtype, as every scalar op does).
void scale_(Tensor& g, double f) { g.copy_(ops::mul(g, f)); }
// As torch.nn.utils.clip_grad_norm_: scale by max_norm / (norm + 1e-6) when that is below 1.
double clip_coefficient(double norm, double max_norm) { return max_norm / (norm + 1e-6); }
// Per-tensor clipping: g itself when its L2 norm is within max_norm, else a copy scaled by the clipping
// coefficient (g untouched, and no copy when nothing is clipped).
Tensor clipped(const Tensor& g, double max_norm) {
  const double coef = clip_coefficient(std::sqrt(sum_squares(g)), max_norm);
  return coef < 1 ? ops::mul(g, coef) : g;
}
}  // namespace

Optimizer::Optimizer(std::vector<NamedParam> params, double lr, double max_grad_norm)
    : params_(std::move(params)), lr_(lr), max_grad_norm_(max_grad_norm) {
  for (const NamedParam& p : params_) {
    LINTRA_CHECK(p.var.defined() && p.var.is_leaf(), "optimizer: parameter '{}' is not a leaf Var", p.name);
    LINTRA_CHECK(p.var.data().is_contiguous(), "optimizer: parameter '{}' is not contiguous", p.name);
  }
}

void Optimizer::add_slot(const std::string& name) {
  std::vector<Tensor> v;
  for (const NamedParam& p : params_) v.push_back(Tensor::zeros(p.var.shape(), p.var.dtype(), p.var.data().device()));
  slots_[name] = std::move(v);
}

void Optimizer::step() {
  NoGradGuard no_grad;
  ++step_count_;
  for (size_t i = 0; i < params_.size(); ++i) {
    const Var& v = params_[i].var;
    if (!v.grad().defined()) continue;
    Tensor p = v.data();
    Tensor g = v.grad().contiguous();
    if (max_grad_norm_ > 0) g = clipped(g, max_grad_norm_);  // the Var's gradient stays as backward left it
    update(i, p, g);
    p.bump_version();
  }
}

void Optimizer::zero_grad() {
  for (NamedParam& p : params_) p.var.zero_grad();
}

std::map<std::string, std::vector<std::pair<std::string, Tensor>>> Optimizer::state() const {
  std::map<std::string, std::vector<std::pair<std::string, Tensor>>> out;
  for (const auto& [name, tensors] : slots_) {
    auto& dst = out[name];
    for (size_t i = 0; i < params_.size(); ++i) dst.emplace_back(params_[i].name, tensors[i]);
  }
  return out;
}

void Optimizer::load_state(int64_t step_count,
                           const std::map<std::string, std::vector<std::pair<std::string, Tensor>>>& slots) {
  std::vector<std::string> problems;
  for (auto& [name, tensors] : slots_) {
    auto it = slots.find(name);
    if (it == slots.end()) {
      problems.push_back(fmt::format("slot '{}' is missing", name));
      continue;
    }
    std::map<std::string, Tensor> by_name(it->second.begin(), it->second.end());
    for (size_t i = 0; i < params_.size(); ++i) {
      auto t = by_name.find(params_[i].name);
      if (t == by_name.end()) {
        problems.push_back(fmt::format("{}/{}: missing", name, params_[i].name));
      } else if (t->second.shape() != tensors[i].shape() || t->second.dtype() != tensors[i].dtype()) {
        problems.push_back(fmt::format("{}/{}: {} in the checkpoint, {} expected", name, params_[i].name,
                                       t->second.describe(), tensors[i].describe()));
      } else {
        tensors[i] = t->second.to(tensors[i].device()).contiguous().clone();  // onto the parameter's device
      }
    }
  }
  LINTRA_CHECK(problems.empty(), "optimizer state does not match the model ({} problems):\n  {}", problems.size(),
               fmt::join(problems, "\n  "));
  step_count_ = step_count;
}

double global_grad_norm(const std::vector<NamedParam>& params) {
  double s = 0;
  for (const NamedParam& p : params)
    if (p.var.grad().defined()) s += sum_squares(p.var.grad().contiguous());
  return std::sqrt(s);
}

double clip_global_grad_norm_(const std::vector<NamedParam>& params, double max_norm) {
  const double norm = global_grad_norm(params);
  const double coef = clip_coefficient(norm, max_norm);
  if (coef < 1) {
    for (const NamedParam& p : params) {
      if (!p.var.grad().defined()) continue;
      Tensor g = p.var.grad().contiguous();
      scale_(g, coef);
      Var v = p.var;
      v.set_grad(g);
    }
  }
  return norm;
}

std::unique_ptr<Optimizer> make_sgd(std::vector<NamedParam> params, const OptimizerOptions& o);
std::unique_ptr<Optimizer> make_radam(std::vector<NamedParam> params, const OptimizerOptions& o);
std::unique_ptr<Optimizer> make_adam(std::vector<NamedParam> params, const OptimizerOptions& o);

std::unique_ptr<Optimizer> make_optimizer(std::vector<NamedParam> params, const OptimizerOptions& o) {
  LINTRA_CHECK(o.lr >= 0, "optimizer: learning rate must be non-negative, got {}", o.lr);
  if (o.name == "sgd") return make_sgd(std::move(params), o);
  if (o.name == "adam") return make_adam(std::move(params), o);
  if (o.name == "radam") return make_radam(std::move(params), o);
  LINTRA_FAIL("optimizer: unknown name '{}' (valid: sgd, adam, radam)", o.name);
}

}  // namespace lintra::train
