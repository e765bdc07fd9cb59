// selfcheck.cpp — `lintra selfcheck`: a one-minute proof that the build works end to end: a float64
// gradcheck of a small network, then a tiny MLP trained with autograd whose loss must fall.
// A failed check throws lintra::Error.
#include <CLI/CLI.hpp>

#include <cmath>

#include "app/commands.h"

#include "autograd/functional.h"
#include "autograd/gradcheck.h"
#include "core/threading.h"

namespace lintra::app {

namespace {

// A 2-layer perceptron: logits = tanh(x·W1ᵀ + b1)·W2ᵀ + b2.
Var mlp(const Var& x, const Var& w1, const Var& b1, const Var& w2, const Var& b2) {
  return linear(tanh(linear(x, w1, b1)), w2, b2);
}

void run_selfcheck() {
  fmt::print("lintra {} self-check ({} threads)\n", LINTRA_VERSION, num_threads());

  // 1. Gradients of a small network against central differences (float64).
  Generator gen(7);
  Tensor targets = Tensor::from_vector(std::vector<int64_t>{0, 1, 1}, {3});
  auto f = [&](const std::vector<Var>& v) { return cross_entropy(mlp(v[0], v[1], v[2], v[3], v[4]), targets); };
  GradcheckResult gc = gradcheck(f, {Tensor::normal({3, 2}, gen, 0, 1, DType::f64), Tensor::normal({4, 2}, gen, 0, 1, DType::f64),
                                     Tensor::normal({4}, gen, 0, 1, DType::f64), Tensor::normal({2, 4}, gen, 0, 1, DType::f64),
                                     Tensor::normal({2}, gen, 0, 1, DType::f64)});
  fmt::print("gradcheck of a 2-layer MLP with cross entropy: {}\n", gc.message);
  LINTRA_CHECK(gc.ok, "self-check failed: gradients disagree with finite differences:\n{}", gc.message);

  // 2. Train the MLP on XOR-labelled points (label = [x·y > 0]) with plain gradient descent.
  const int64_t n = 512, hidden = 32;
  Tensor x = Tensor::uniform({n, 2}, gen, -1, 1);
  std::vector<int64_t> labels(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) labels[size_t(i)] = x.at({i, 0}) * x.at({i, 1}) > 0 ? 1 : 0;
  Tensor y = Tensor::from_vector(labels, {n});
  Var w1(Tensor::normal({hidden, 2}, gen, 0, 1), true), b1(Tensor::zeros({hidden}), true);
  Var w2(Tensor::normal({2, hidden}, gen, 0, 1.0 / std::sqrt(double(hidden))), true), b2(Tensor::zeros({2}), true);
  std::vector<Var> params = {w1, b1, w2, b2};
  const double lr = 0.5;
  double first = 0, last = 0;
  for (int step = 0; step <= 400; ++step) {
    Var loss = cross_entropy(mlp(Var(x), w1, b1, w2, b2), y);
    for (Var& p : params) p.zero_grad();
    loss.backward();
    {
      NoGradGuard no_grad;
      for (Var& p : params) p.set_data(ops::sub(p.data(), ops::mul(p.grad(), lr)));
    }
    last = loss.item();
    if (step == 0) first = last;
    if (step % 50 == 0) fmt::print("step {:>3}  loss {:.4f}\n", step, last);
  }
  LINTRA_CHECK(std::isfinite(last) && last < 0.5 * first,
               "self-check failed: the training loss did not fall (first {:.4f}, last {:.4f})", first, last);
  fmt::print("self-check passed: loss fell from {:.4f} to {:.4f}\n", first, last);
}

}  // namespace

Command add_selfcheck_command(CLI::App& app) {
  auto* cli = app.add_subcommand("selfcheck", "gradient check and a tiny training run whose loss must fall\n"
                                              "Example: lintra selfcheck");
  return {cli, [] {
            run_selfcheck();
            return 0;
          }};
}

}  // namespace lintra::app
