#include "autograd/var.h"

#include "autograd/node.h"
#include "core/error.h"

namespace lintra {

Var::Var(Tensor data, bool requires_grad) : impl_(std::make_shared<VarImpl>()) {
  impl_->data = std::move(data);
  set_requires_grad(requires_grad);
}

Var& Var::set_requires_grad(bool r) {
  LINTRA_CHECK(!r || is_floating(impl_->data.dtype()), "requires_grad: only floating tensors can require grad, got {}",
               impl_->data.describe());
  LINTRA_CHECK(is_leaf() || r, "requires_grad: cannot turn off requires_grad of a non-leaf Var; use detach()");
  impl_->requires_grad = r;
  return *this;
}

void Var::set_data(const Tensor& t) {
  LINTRA_CHECK(t.shape() == impl_->data.shape() && t.dtype() == impl_->data.dtype(),
               "set_data: new data {} does not match {}", t.describe(), impl_->data.describe());
  impl_->data.bump_version();
  impl_->data = t;
}

Var Var::from_node(Tensor data, std::shared_ptr<Node> fn) {
  Var v;
  v.impl_ = std::make_shared<VarImpl>();
  v.impl_->data = std::move(data);
  v.impl_->requires_grad = true;
  v.impl_->grad_fn = std::move(fn);
  return v;
}

// --- Node, grad mode ------------------------------------------------------------------------------

namespace {
thread_local bool g_grad_enabled = true;
}

bool grad_enabled() { return g_grad_enabled; }
NoGradGuard::NoGradGuard() : previous_(g_grad_enabled) { g_grad_enabled = false; }
NoGradGuard::~NoGradGuard() { g_grad_enabled = previous_; }

std::vector<Tensor> Node::unpack_saved() const {
  std::vector<Tensor> out;
  out.reserve(saved.size());
  for (size_t i = 0; i < saved.size(); ++i) {
    const SavedTensor& s = saved[i];
    LINTRA_CHECK(s.tensor.version() == s.version,
                 "backward of '{}': saved tensor {} ({}) was modified in place after the forward pass "
                 "(version {} when saved, {} now). Hint: use an out-of-place op, or clone() before modifying.",
                 name, i, s.tensor.describe(), s.version, s.tensor.version());
    out.push_back(s.tensor);
  }
  return out;
}

Node::~Node() {
  std::vector<std::shared_ptr<Node>> pending;
  for (Edge& e : inputs)
    if (e.fn) pending.push_back(std::move(e.fn));
  while (!pending.empty()) {
    std::shared_ptr<Node> n = std::move(pending.back());
    pending.pop_back();
    if (n.use_count() == 1) {  // we hold the last reference: take its inputs before it dies
      for (Edge& e : n->inputs)
        if (e.fn) pending.push_back(std::move(e.fn));
    }
  }
}

void Node::release() {
  saved.clear();
  backward = nullptr;
  inputs.clear();
  released = true;
}

Var make_result(Tensor out, const char* name, std::vector<Var> inputs, std::vector<Tensor> saved, BackwardFn backward) {
  bool needs = false;
  if (grad_enabled()) {
    for (const Var& v : inputs) needs = needs || v.requires_grad();
  }
  if (!needs) return Var(std::move(out), false);
  auto node = std::make_shared<Node>();
  node->name = name;
  node->inputs.reserve(inputs.size());
  for (const Var& v : inputs) {
    Edge e;
    if (v.defined()) {
      e.requires_grad = v.requires_grad();
      e.shape = v.shape();
      if (e.requires_grad) {
        if (v.is_leaf()) e.leaf = std::shared_ptr<VarImpl>(v.shared_impl());
        else e.fn = v.grad_fn();
      }
    }
    node->inputs.push_back(std::move(e));
  }
  for (Tensor& t : saved) node->saved.push_back({t, t.defined() ? t.version() : 0});
  node->backward = std::move(backward);
  node->output_shape = out.shape();
  return Var::from_node(std::move(out), std::move(node));
}

}  // namespace lintra
