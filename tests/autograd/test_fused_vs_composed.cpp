// test_fused_vs_composed.cpp — invariant: each fused op with its own backward (softmax,
// log_softmax, layer_norm, cross_entropy) equals its composition from primitive Var ops in value AND
// gradient, in float32 and float64, under a random upstream gradient (a random weighting of the
// output, so every output element's gradient path is exercised). The composed forms are the
// textbook formulas: softmax = eˣ / Σeˣ; log_softmax = x − log Σeˣ; layer_norm = (x − μ)/√(σ² + ε)·γ + β
// with biased σ²; cross_entropy = −(Σ over valid rows of log_softmax picked at the target) / count.
//
// Tolerances (|fused − composed| ≤ atol + rtol·|composed|): both sides evaluate the same function by
// different sequences of O(10) roundings on O(1) values (inputs in [−3, 3]; layer norm divides by a
// std of order 1). float64: rtol 1e-10, atol 1e-12 (a few hundred ulp at most). float32: rtol 1e-4,
// atol 2e-5 — the composed eˣ/Σ and (x − μ)·rsqrt chains lose several float32 ulp per step and the
// gradients sum up to 7 such terms.
#include <gtest/gtest.h>

#include "tests/autograd/autograd_test_util.h"

namespace lintra {
namespace {

using testing::Tol;
using testing::tol_for;
using testing::close;


// Runs f on fresh leaves made from `inputs`, backward of a random weighting w of the output (or of the
// output itself if it is a scalar), and returns the output and every input's gradient.
struct Run {
  Tensor out;
  std::vector<Tensor> grads;
};
Run run(const std::function<Var(const std::vector<Var>&)>& f, const std::vector<Tensor>& inputs, const Tensor& w) {
  std::vector<Var> vs;
  for (const Tensor& t : inputs) vs.push_back(Var(t, true));
  Var y = f(vs);
  Var loss = y.numel() == 1 && y.dim() == 0 ? y : sum(mul(y, Var(w)));
  loss.backward();
  Run r{y.data(), {}};
  for (const Var& v : vs) r.grads.push_back(v.grad());
  return r;
}

void expect_same(const std::function<Var(const std::vector<Var>&)>& fused,
                 const std::function<Var(const std::vector<Var>&)>& composed, const std::vector<Tensor>& inputs,
                 const Tensor& w, const std::string& what) {
  const Tol tol = tol_for(inputs[0].dtype());
  Run a = run(fused, inputs, w), b = run(composed, inputs, w);
  EXPECT_TRUE(close(a.out, b.out, tol)) << what << ": values";
  for (size_t i = 0; i < inputs.size(); ++i) {
    ASSERT_TRUE(a.grads[i].defined() && b.grads[i].defined()) << what << ": input " << i;
    EXPECT_TRUE(close(a.grads[i], b.grads[i], tol)) << what << ": gradient of input " << i;
  }
}

Var composed_softmax(const Var& x, int64_t dim) {
  Var e = exp(x);
  return div(e, sum(e, {dim}, true));
}
Var composed_log_softmax(const Var& x, int64_t dim) { return sub(x, log(sum(exp(x), {dim}, true))); }

TEST(AutogradFusedVsComposed, SoftmaxAndLogSoftmax) {
  Generator gen(161);
  for (DType dt : {DType::f32, DType::f64})
    for (int64_t dim : {-1, 1, 0}) {
      Tensor x = Tensor::uniform({3, 5, 7}, gen, -3, 3, dt);
      Tensor w = Tensor::uniform({3, 5, 7}, gen, -1, 1, dt);
      std::string what = fmt::format("{} dim {}", dt, dim);
      expect_same([&](const std::vector<Var>& v) { return softmax(v[0], dim); },
                  [&](const std::vector<Var>& v) { return composed_softmax(v[0], dim); }, {x}, w, "softmax " + what);
      expect_same([&](const std::vector<Var>& v) { return log_softmax(v[0], dim); },
                  [&](const std::vector<Var>& v) { return composed_log_softmax(v[0], dim); }, {x}, w,
                  "log_softmax " + what);
    }
}

TEST(AutogradFusedVsComposed, LayerNorm) {
  Generator gen(162);
  const double eps = 1e-5;
  for (DType dt : {DType::f32, DType::f64})
    for (const Shape& s : {Shape{3, 5, 7}, Shape{13}}) {
      const int64_t D = s.back();
      Tensor x = Tensor::uniform(s, gen, -3, 3, dt), g = Tensor::uniform({D}, gen, 0.5, 1.5, dt),
             b = Tensor::uniform({D}, gen, -1, 1, dt), w = Tensor::uniform(s, gen, -1, 1, dt);
      auto composed = [&](const std::vector<Var>& v) {
        Var mu = mean(v[0], {-1}, true);
        Var xc = sub(v[0], mu);
        Var var = mean(square(xc), {-1}, true);
        return add(mul(mul(xc, rsqrt(add(var, eps))), v[1]), v[2]);
      };
      expect_same([&](const std::vector<Var>& v) { return layer_norm(v[0], v[1], v[2], eps); }, composed, {x, g, b},
                  w, fmt::format("layer_norm {} {}", dt, shape_str(s)));
    }
}

TEST(AutogradFusedVsComposed, CrossEntropy) {
  Generator gen(163);
  for (DType dt : {DType::f32, DType::f64})
    for (Reduction r : {Reduction::mean, Reduction::sum, Reduction::none}) {
      const int64_t R = 7, C = 5;
      Tensor logits = Tensor::uniform({R, C}, gen, -3, 3, dt);
      Tensor target = Tensor::from_vector(std::vector<int64_t>{4, 0, -100, 2, 2, -100, 1}, {R});
      Tensor w = Tensor::uniform({R}, gen, -1, 1, dt);
      // Composed: pick log-probabilities at safe targets, zero the ignored rows, reduce.
      Tensor valid = ops::ne(target, -100.0);
      Tensor safe = ops::where(valid, target, Tensor::scalar(0, DType::i64));
      Tensor validf = valid.to(dt);
      const double count = ops::sum(validf).item();
      auto composed = [&](const std::vector<Var>& v) {
        Var picked = reshape(gather(composed_log_softmax(v[0], -1), 1, safe.unsqueeze(1)), {R});
        Var nll = neg(mul(picked, Var(validf)));
        if (r == Reduction::none) return nll;
        if (r == Reduction::sum) return sum(nll);
        return mul(sum(nll), 1.0 / count);
      };
      expect_same([&](const std::vector<Var>& v) { return cross_entropy(v[0], target, -100, r); }, composed, {logits},
                  w, fmt::format("cross_entropy {} reduction {}", dt, int(r)));
    }
}

}  // namespace
}  // namespace lintra
