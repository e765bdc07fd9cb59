// engine.cpp — reverse-mode backward: a topological order of the Nodes reachable from the root
// (iterative DFS), then one pass in reverse order that calls each Node's backward, sums the
// gradients arriving at each Node, and accumulates the gradients of leaves in Var::grad().
#include <unordered_map>
#include <unordered_set>

#include "autograd/node.h"
#include "core/ops.h"

namespace lintra {

namespace {

// Owning pointers: releasing a Node drops its inputs, which may free the Nodes below it while the
// backward pass still has to visit them.
std::vector<std::shared_ptr<Node>> topological_order(const std::shared_ptr<Node>& root) {
  std::vector<std::shared_ptr<Node>> order;
  std::unordered_set<Node*> visited;
  std::vector<std::pair<std::shared_ptr<Node>, size_t>> stack{{root, 0}};
  visited.insert(root.get());
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (next < node->inputs.size()) {
      const Edge& in = node->inputs[next++];
      const std::shared_ptr<Node>& child = in.fn;
      if (child && visited.insert(child.get()).second) stack.push_back({child, 0});
    } else {
      order.push_back(node);
      stack.pop_back();
    }
  }
  return order;  // children before parents; the root is last
}

// Leaves own their gradient (a fresh tensor), so in-place changes to it (clipping) touch nothing else.
void accumulate_leaf(Tensor& slot, const Tensor& g) { slot = slot.defined() ? ops::add(slot, g) : g.clone(); }
void accumulate(Tensor& slot, const Tensor& g) { slot = slot.defined() ? ops::add(slot, g) : g; }

}  // namespace

void Var::backward(const Tensor& grad_in, bool retain_graph) const {
  LINTRA_CHECK(defined(), "backward: undefined Var");
  LINTRA_CHECK(requires_grad(), "backward: this Var does not require grad (no input of its graph requires grad)");
  Tensor grad = grad_in;
  if (!grad.defined()) {
    LINTRA_CHECK(numel() == 1, "backward: a gradient must be given for a non-scalar output of shape {}",
                 shape_str(shape()));
    grad = Tensor::ones(shape(), dtype(), data().device());
  }
  LINTRA_CHECK(grad.shape() == shape() && grad.dtype() == dtype(),
               "backward: gradient {} does not match the output {}", grad.describe(), data().describe());
  if (is_leaf()) {
    Tensor& slot = impl()->grad;
    accumulate_leaf(slot, grad);
    return;
  }
  NoGradGuard no_grad;  // backward functions compute on tensors; never record
  std::vector<std::shared_ptr<Node>> order = topological_order(grad_fn());
  std::unordered_map<Node*, Tensor> grads;
  grads[grad_fn().get()] = grad;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Node* node = it->get();
    LINTRA_CHECK(!node->released,
                 "backward through the graph a second time: the saved state of '{}' was already freed. "
                 "Pass retain_graph=true to the first backward() to backward twice.",
                 node->name);
    auto found = grads.find(node);
    if (found == grads.end()) continue;  // no gradient flows here
    Tensor g = std::move(found->second);
    grads.erase(found);
    std::vector<Tensor> saved = node->unpack_saved();
    std::vector<Tensor> input_grads = node->backward(saved, g);
    LINTRA_CHECK(input_grads.size() == node->inputs.size(), "backward of '{}' returned {} gradients for {} inputs",
                 node->name, input_grads.size(), node->inputs.size());
    for (size_t i = 0; i < node->inputs.size(); ++i) {
      const Edge& in = node->inputs[i];
      if (!in.requires_grad || !input_grads[i].defined()) continue;
      const Tensor& gi = input_grads[i];
      LINTRA_CHECK(gi.shape() == in.shape, "backward of '{}': gradient {} for input {} of shape {}", node->name,
                   shape_str(gi.shape()), i, shape_str(in.shape));
      if (in.leaf) {
        accumulate_leaf(in.leaf->grad, gi);
      } else {
        accumulate(grads[in.fn.get()], gi);
      }
    }
    if (!retain_graph) node->release();
  }
}

}  // namespace lintra
