// feed_forward.h — the position-wise MLP of a transformer layer:
//   FF(x) = W2 · Dropout(act(W1·x + b1)) + b2,   x (…, D) → (…, D), hidden width d_ff
// act is ReLU (the paper's code) or GELU (exact erf form). The dropout after the second linear is
// the encoder layer's (TransformerEncoderLayer), not this module's. Cost O(rows·D·d_ff).
#pragma once

#include <memory>
#include <string>

#include "nn/dropout.h"
#include "nn/linear.h"

namespace lintra::nn {

enum class Activation { relu, gelu };
Activation activation_from_string(const std::string& name);  // "relu" | "gelu"; throws otherwise
const char* activation_name(Activation a);
Var apply_activation(Activation a, const Var& x);

class FeedForward : public Module {
 public:
  FeedForward(int64_t d_model, int64_t d_ff, Activation activation, double dropout, Generator& init_gen,
              Generator dropout_gen);

  Var forward(const Var& x);
  Var operator()(const Var& x) { return forward(x); }

  const Linear& linear1() const { return *linear1_; }
  const Linear& linear2() const { return *linear2_; }
  Activation activation() const { return activation_; }
  std::string type_name() const override { return "FeedForward"; }
  std::string extra_repr() const override;

 private:
  Activation activation_;
  std::shared_ptr<Linear> linear1_, linear2_;
  std::shared_ptr<Dropout> dropout_;
};

}  // namespace lintra::nn
