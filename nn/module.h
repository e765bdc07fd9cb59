// module.h — the base of every layer: named parameters, named children, named generators, and the
// train/eval switch.
//
// A layer registers what it owns once, by name, in its constructor:
//   weight_ = register_parameter("weight", Var(Tensor::empty({out, in})));
//   attention_ = register_module("attention", std::make_shared<AttentionLayer>(…));
//   register_generator("generator", &gen_);
// and keeps its own typed handles for forward(). Var is a shared handle, so the module's table and
// the layer's member are the same variable: an optimizer stepping named_parameters() updates what
// forward() reads, and to(DType) converts both at once.
//
// Names are dotted paths through the children, e.g. "layers.3.attention.query.weight"; they are
// the checkpoint's dataset paths (DESIGN.md §7). Order is registration order, children after a
// module's own parameters, so it is stable for a given architecture.
//
// Modules are neither copyable nor movable (generators are registered by address); hold them in
// std::shared_ptr. forward() is not part of the base: each layer declares its own signature.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "autograd/var.h"
#include "core/rng.h"

namespace lintra::nn {

class Module {
 public:
  Module() = default;
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // "Linear"; extra_repr() gives the hyperparameters for describe(): "in=4, out=8, bias".
  virtual std::string type_name() const { return "Module"; }
  virtual std::string extra_repr() const { return {}; }

  // --- registration (constructors only) ----------------------------------------------------------
  // Registers a floating leaf as a trainable parameter (requires_grad is switched on) and returns it.
  Var register_parameter(const std::string& name, Var v);
  // Registers a child and returns it; the child takes this module's train/eval mode.
  template <typename M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> child) {
    add_child(name, child);
    return child;
  }
  // A random stream the module draws from (dropout masks): exposed for checkpoints and tests.
  void register_generator(const std::string& name, Generator* gen);

  // --- traversal ---------------------------------------------------------------------------------
  std::vector<std::pair<std::string, Var>> named_parameters(const std::string& prefix = {}) const;
  std::vector<Var> parameters() const;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> named_children() const { return children_; }
  std::vector<std::pair<std::string, Generator*>> named_generators(const std::string& prefix = {}) const;
  // The parameter with this dotted name; throws listing the valid names when there is none.
  Var parameter(const std::string& dotted_name) const;
  int64_t num_parameters() const;  // elements over all parameters

  // --- modes and utilities -----------------------------------------------------------------------
  void train(bool on = true);  // recursive
  void eval() { train(false); }
  bool is_training() const { return training_; }
  void zero_grad();  // drops every parameter's gradient
  // Converts every parameter to `dtype` (float32 ↔ float64, e.g. for gradient checks); drops grads.
  void to(DType dtype);
  // Moves every parameter to `device` (an explicit copy); drops grads. The module's generators stay
  // as they are: random numbers do not depend on the device. Inputs must be moved by the caller.
  void to(Device device);
  // Where the parameters live (the CPU for a module without any); throws when they are on several.
  Device device() const;
  // The tree with hyperparameters and parameter shapes, one module per line.
  std::string describe() const;

 protected:
  void add_child(const std::string& name, std::shared_ptr<Module> child);

 private:
  void check_new_name(const std::string& name, const char* what) const;
  void describe_into(std::string& out, const std::string& name, int depth) const;

  std::vector<std::pair<std::string, Var>> params_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
  std::vector<std::pair<std::string, Generator*>> generators_;
  bool training_ = true;
};

// An indexed list of children named "0", "1", …: a stack of layers.
class ModuleList : public Module {
 public:
  std::string type_name() const override { return "ModuleList"; }
  void push_back(std::shared_ptr<Module> m) {
    add_child(std::to_string(size_), std::move(m));
    ++size_;
  }
  int64_t size() const { return size_; }

 private:
  int64_t size_ = 0;
};

}  // namespace lintra::nn
