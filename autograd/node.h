// node.h — a backward function in the graph (PyTorch's Node): the op's name, its inputs (the
// graph's edges), the tensors it saved for backward with their versions, and the backward itself.
//
// backward(saved, grad_out) returns one gradient per input, in input order (an undefined Tensor for
// an input that needs none). The engine checks every saved tensor's version before calling it, so an
// in-place change after the forward becomes a clear error instead of a silently wrong gradient.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "autograd/var.h"
#include "core/tensor.h"

namespace lintra {

struct SavedTensor {
  Tensor tensor;
  uint64_t version = 0;
};

using BackwardFn = std::function<std::vector<Tensor>(const std::vector<Tensor>& saved, const Tensor& grad)>;

// An input of a Node as the backward pass needs it, without its data: the Node that produced it
// (non-leaves), or the leaf variable whose gradient accumulates (leaves that require grad). Holding
// edges rather than Vars lets the forward pass free every intermediate that no backward saved.
struct Edge {
  std::shared_ptr<Node> fn;         // producer of a non-leaf input
  std::shared_ptr<VarImpl> leaf;    // a leaf input that requires grad
  bool requires_grad = false;
  Shape shape;
};

// What a backward function may capture of an input: its shape and whether it needs a gradient
// (capturing the Var itself would keep its data alive until backward).
struct InputInfo {
  Shape shape;
  bool requires_grad = false;
};
inline InputInfo info(const Var& v) { return {v.shape(), v.requires_grad()}; }

struct Node {
  std::string name;
  std::vector<Edge> inputs;
  std::vector<SavedTensor> saved;
  BackwardFn backward;
  Shape output_shape;
  bool released = false;

  Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  // Frees the chain of Nodes only this one keeps alive iteratively: a graph of a million ops
  // dropped without a backward would otherwise overflow the stack through nested destructors.
  ~Node();

  // Throws if a saved tensor was modified in place since it was saved.
  std::vector<Tensor> unpack_saved() const;
  void release();
};

// Grad mode: whether ops record a graph (thread-local, on by default).
bool grad_enabled();
class NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

// Wraps an op's result: records a Node when grad mode is on and some input requires grad,
// otherwise returns a plain Var. `saved` are the tensors backward needs (versions recorded now).
Var make_result(Tensor out, const char* name, std::vector<Var> inputs, std::vector<Tensor> saved, BackwardFn backward);

}  // namespace lintra
