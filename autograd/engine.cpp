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

// Whether t is the only handle on its storage and covers it one to one (contiguous, the whole of it):
// then writing into t in place changes nothing any other tensor, saved state or caller can see, and
// keeping t keeps no more memory than t.
bool sole_dense_handle(const Tensor& t) {
  return t.storage().use_count() == 1 && t.is_contiguous() && t.offset() == 0 && t.nbytes() == t.storage()->nbytes();
}

// slot += g: in place when the slot alone holds its storage (a gradient summed from several uses: the
// residual stream's, a weight used twice), else into a fresh tensor.
void add_into(Tensor& slot, const Tensor& g) {
  if (sole_dense_handle(slot)) ops::add_(slot, g);
  else slot = ops::add(slot, g);
}

// Leaves own their gradient, so in-place changes to it (clipping, accumulation) touch nothing else: g is
// taken as it is when nothing else holds it, else copied.
void accumulate_leaf(Tensor& slot, Tensor g) {
  if (slot.defined()) add_into(slot, g);
  else slot = sole_dense_handle(g) ? std::move(g) : g.clone();
}
void accumulate(Tensor& slot, Tensor g) {
  if (slot.defined()) add_into(slot, g);
  else slot = std::move(g);
}

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
    accumulate_leaf(impl()->grad, std::move(grad));
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
      Tensor gi = std::move(input_grads[i]);  // so that a gradient nothing else holds counts one handle
      LINTRA_CHECK(gi.shape() == in.shape, "backward of '{}': gradient {} for input {} of shape {}", node->name,
                   shape_str(gi.shape()), i, shape_str(in.shape));
      if (in.leaf) {
        accumulate_leaf(in.leaf->grad, std::move(gi));
      } else {
        accumulate(grads[in.fn.get()], std::move(gi));
      }
    }
    if (!retain_graph) node->release();
  }
}

}  // namespace lintra
