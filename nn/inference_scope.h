// inference_scope.h — a module in eval mode (dropout off) with autograd off for the lifetime of the
// scope; the module's previous training mode is restored when it ends, also when an exception leaves it.
#pragma once

#include "autograd/node.h"
#include "nn/module.h"

namespace lintra::nn {

class InferenceScope {
 public:
  explicit InferenceScope(Module& module) : module_(module), was_training_(module.is_training()) { module_.eval(); }
  ~InferenceScope() { module_.train(was_training_); }
  InferenceScope(const InferenceScope&) = delete;
  InferenceScope& operator=(const InferenceScope&) = delete;

 private:
  Module& module_;
  bool was_training_;
  NoGradGuard no_grad_;
};

}  // namespace lintra::nn
