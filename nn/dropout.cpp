#include "nn/dropout.h"

#include <fmt/format.h>

#include "autograd/functional.h"

namespace lintra::nn {

Dropout::Dropout(double p, Generator gen) : p_(p), gen_(gen) {
  LINTRA_CHECK(p_ >= 0 && p_ < 1, "Dropout: probability {} is outside [0, 1)", p_);
  register_generator("generator", &gen_);
}

Var Dropout::forward(const Var& x) { return dropout(x, p_, gen_, is_training()); }

Var Dropout::after_relu(const Var& x) { return relu_dropout(x, p_, gen_, is_training()); }

Var Dropout::add_to(const Var& residual, const Var& x) { return dropout_add(residual, x, p_, gen_, is_training()); }

std::string Dropout::extra_repr() const { return fmt::format("p={:g}", p_); }

}  // namespace lintra::nn
