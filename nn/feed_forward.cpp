#include "nn/feed_forward.h"

#include <fmt/format.h>

#include "autograd/functional.h"

namespace lintra::nn {

Activation activation_from_string(const std::string& name) {
  if (name == "relu") return Activation::relu;
  if (name == "gelu") return Activation::gelu;
  LINTRA_FAIL("unknown activation '{}': expected 'relu' or 'gelu'", name);
}

const char* activation_name(Activation a) { return a == Activation::relu ? "relu" : "gelu"; }

Var apply_activation(Activation a, const Var& x) { return a == Activation::relu ? relu(x) : gelu(x); }

FeedForward::FeedForward(int64_t d_model, int64_t d_ff, Activation activation, double dropout, Generator& init_gen,
                         Generator dropout_gen)
    : activation_(activation) {
  linear1_ = register_module("linear1", std::make_shared<Linear>(d_model, d_ff, true, init_gen));
  linear2_ = register_module("linear2", std::make_shared<Linear>(d_ff, d_model, true, init_gen));
  dropout_ = register_module("dropout", std::make_shared<Dropout>(dropout, dropout_gen));
}

Var FeedForward::forward(const Var& x) {
  const Var h = linear1_->forward(x);
  if (activation_ == Activation::relu) return linear2_->forward(dropout_->after_relu(h));  // one pass
  return linear2_->forward(dropout_->forward(apply_activation(activation_, h)));
}

std::string FeedForward::extra_repr() const {
  return fmt::format("d_model={}, d_ff={}, activation={}", linear1_->in_features(), linear1_->out_features(),
                     activation_name(activation_));
}

}  // namespace lintra::nn
