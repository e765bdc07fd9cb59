// var.h — Var: a tensor that autograd tracks (PyTorch's vocabulary: data, grad, requires_grad,
// grad_fn). A Var is a shared handle: copies refer to the same variable.
//
// Leaves (no grad_fn) that require grad accumulate their gradient in grad(); intermediate Vars
// pass gradients on through their grad_fn (a Node, autograd/node.h) and keep none.
#pragma once

#include <memory>
#include <string>

#include "core/tensor.h"

namespace lintra {

struct Node;

struct VarImpl {
  Tensor data;
  Tensor grad;  // leaves only; undefined until the first backward reaches it
  bool requires_grad = false;
  std::shared_ptr<Node> grad_fn;  // null for leaves
};

class Var {
 public:
  Var() = default;
  explicit Var(Tensor data, bool requires_grad = false);

  bool defined() const { return impl_ != nullptr; }
  const Tensor& data() const { return impl_->data; }
  // Replaces the data of a leaf (optimizers, checkpoint loading). Bumps the version of the old data.
  void set_data(const Tensor& t);
  const Tensor& grad() const { return impl_->grad; }
  void set_grad(const Tensor& g) { impl_->grad = g; }
  void zero_grad() { impl_->grad = Tensor(); }
  bool requires_grad() const { return impl_ && impl_->requires_grad; }
  Var& set_requires_grad(bool r);
  bool is_leaf() const { return !impl_->grad_fn; }
  const std::shared_ptr<Node>& grad_fn() const { return impl_->grad_fn; }
  VarImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<VarImpl>& shared_impl() const { return impl_; }

  // Shape accessors forwarded to the data.
  const Shape& shape() const { return impl_->data.shape(); }
  int64_t dim() const { return impl_->data.dim(); }
  int64_t size(int64_t d) const { return impl_->data.size(d); }
  int64_t numel() const { return impl_->data.numel(); }
  DType dtype() const { return impl_->data.dtype(); }
  double item() const { return impl_->data.item(); }

  // Reverse-mode differentiation from this Var. `grad` defaults to 1 for a one-element Var.
  // Saved state is released afterwards unless retain_graph; a second backward through a released
  // graph throws.
  void backward(const Tensor& grad = Tensor(), bool retain_graph = false) const;

  // The same data, cut from the graph (no grad_fn, requires_grad false).
  Var detach() const { return Var(impl_->data, false); }

  // Internal: a Var produced by an op.
  static Var from_node(Tensor data, std::shared_ptr<Node> fn);

 private:
  std::shared_ptr<VarImpl> impl_;
};

}  // namespace lintra
