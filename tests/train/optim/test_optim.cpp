// test_optim.cpp — optimizers and schedules: RAdam and Adam match a scalar transcription of the
// paper's radam.py/AdamW step by step (clipping per tensor, leaving the Var's gradient as it was,
// decoupled weight decay, the SGD-style steps while ρₜ < 5); SGD with momentum matches PyTorch's
// formula; schedules and state round trip.
#include <gtest/gtest.h>

#include <cmath>

#include "autograd/functional.h"
#include "train/optim/optimizer.h"
#include "train/optim/schedule.h"

using namespace lintra;
using namespace lintra::train;

namespace {

// Scalar transcription of the experiment code's RAdam.step for one parameter tensor (double).
struct RefRAdam {
  std::vector<double> m, v;
  int t = 0;
  void step(std::vector<double>& p, std::vector<double> g, double lr, double wd, double clip) {
    double norm = 0;
    for (double x : g) norm += x * x;
    norm = std::sqrt(norm);
    if (clip > 0 && clip / (norm + 1e-6) < 1)
      for (double& x : g) x *= clip / (norm + 1e-6);
    if (m.empty()) m.assign(p.size(), 0), v.assign(p.size(), 0);
    ++t;
    const double b1 = 0.9, b2 = 0.999, eps = 1e-8;
    for (size_t i = 0; i < p.size(); ++i) {
      v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
      m[i] = b1 * m[i] + (1 - b1) * g[i];
    }
    double b2t = std::pow(b2, t), rinf = 2 / (1 - b2) - 1, r = rinf - 2 * t * b2t / (1 - b2t);
    for (size_t i = 0; i < p.size(); ++i) {
      if (r >= 5) {
        double ss = std::sqrt((1 - b2t) * (r - 4) / (rinf - 4) * (r - 2) / r * rinf / (rinf - 2)) / (1 - std::pow(b1, t));
        p[i] += -wd * lr * p[i];
        p[i] += -ss * lr * m[i] / (std::sqrt(v[i]) + eps);
      } else {
        double ss = 1.0 / (1 - std::pow(b1, t));
        p[i] += -wd * lr * p[i];
        p[i] += -ss * lr * m[i];
      }
    }
  }
};

std::vector<double> grad_at(int step, size_t n) {
  std::vector<double> g(n);
  for (size_t i = 0; i < n; ++i) g[i] = std::sin(0.7 * double(step) + double(i)) * (1.0 + 0.5 * double(i));
  return g;
}

}  // namespace

TEST(TrainOptim, RadamMatchesReferenceTranscriptionThroughTheRectificationSwitch) {
  // ρₜ crosses 5 at t = 6 for β2 = 0.999: 12 steps cover both branches.
  const size_t n = 5;
  std::vector<double> p0 = {0.5, -1.0, 2.0, 0.1, -0.3};
  Var w(Tensor::from_vector(p0, {int64_t(n)}), true);
  OptimizerOptions o;
  o.name = "radam";
  o.lr = 0.01;
  o.weight_decay = 0.01;
  o.max_grad_norm = 1.0;
  auto opt = make_optimizer({{"w", w}}, o);
  RefRAdam ref;
  std::vector<double> p = p0;
  for (int s = 0; s < 12; ++s) {
    auto g = grad_at(s, n);
    w.set_grad(Tensor::from_vector(g, {int64_t(n)}));
    opt->step();
    EXPECT_EQ(w.grad().to_vector<double>(), g) << "step " << s << ": clipping changed the Var's gradient";
    ref.step(p, g, o.lr, o.weight_decay, o.max_grad_norm);
    auto got = w.data().to_vector<double>();
    for (size_t i = 0; i < n; ++i) EXPECT_NEAR(got[i], p[i], 1e-12) << "step " << s << " element " << i;
  }
}

TEST(TrainOptim, AdamDecoupledWeightDecayMatchesFormula) {
  Var w(Tensor::from_vector(std::vector<double>{1.0, -2.0}, {2}), true);
  OptimizerOptions o;
  o.name = "adam";
  o.lr = 0.1;
  o.weight_decay = 0.1;
  auto opt = make_optimizer({{"w", w}}, o);
  std::vector<double> p = {1.0, -2.0}, m = {0, 0}, v = {0, 0};
  for (int t = 1; t <= 5; ++t) {
    auto g = grad_at(t, 2);
    w.set_grad(Tensor::from_vector(g, {2}));
    opt->step();
    double ss = o.lr * std::sqrt(1 - std::pow(0.999, t)) / (1 - std::pow(0.9, t));
    for (int i = 0; i < 2; ++i) {
      m[i] = 0.9 * m[i] + 0.1 * g[i];
      v[i] = 0.999 * v[i] + 0.001 * g[i] * g[i];
      p[i] = p[i] * (1 - o.lr * o.weight_decay) - ss * m[i] / (std::sqrt(v[i]) + 1e-8);
    }
    auto got = w.data().to_vector<double>();
    EXPECT_NEAR(got[0], p[0], 1e-12);
    EXPECT_NEAR(got[1], p[1], 1e-12);
  }
}

TEST(TrainOptim, SgdMomentumMinimisesAQuadratic) {
  Var w(Tensor::from_vector(std::vector<double>{3.0, -4.0}, {2}), true);
  OptimizerOptions o;
  o.name = "sgd";
  o.lr = 0.1;
  o.momentum = 0.9;
  auto opt = make_optimizer({{"w", w}}, o);
  for (int s = 0; s < 200; ++s) {
    opt->zero_grad();
    Var loss = sum(square(w));
    loss.backward();
    opt->step();
  }
  EXPECT_LT(ops::max_abs_diff(w.data(), Tensor::zeros({2}, DType::f64)), 1e-4);
}

TEST(TrainOptim, StateRoundTripContinuesIdentically) {
  auto run = [](int split) {
    Var w(Tensor::from_vector(std::vector<double>{0.3, 0.7, -0.2}, {3}), true);
    OptimizerOptions o;
    o.max_grad_norm = 0.5;
    auto opt = make_optimizer({{"w", w}}, o);
    for (int s = 0; s < split; ++s) {
      w.set_grad(Tensor::from_vector(grad_at(s, 3), {3}));
      opt->step();
    }
    auto state = opt->state();
    Tensor saved_w = w.data().clone();
    Var w2(saved_w, true);
    auto opt2 = make_optimizer({{"w", w2}}, o);
    opt2->load_state(opt->step_count(), state);
    for (int s = split; s < 10; ++s) {
      w2.set_grad(Tensor::from_vector(grad_at(s, 3), {3}));
      opt2->step();
    }
    return w2.data().to_vector<double>();
  };
  auto a = run(3), b = run(7);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], b[i]);
}

TEST(TrainOptim, LoadStateReportsEveryMismatch) {
  Var w(Tensor::zeros({2, 3}), true), b(Tensor::zeros({3}), true);
  auto opt = make_optimizer({{"w", w}, {"b", b}}, OptimizerOptions{});
  auto state = opt->state();
  state["exp_avg"][0].second = Tensor::zeros({3, 2});
  state["exp_avg_sq"].pop_back();
  try {
    opt->load_state(1, state);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("exp_avg/w"), std::string::npos) << m;
    EXPECT_NE(m.find("exp_avg_sq/b: missing"), std::string::npos) << m;
  }
}

TEST(TrainOptim, UnknownOptimizerIsAClearError) {
  OptimizerOptions o;
  o.name = "adagrad";
  try {
    make_optimizer({}, o);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("valid: sgd, adam, radam"), std::string::npos);
  }
}

TEST(TrainSchedule, StepDropPlateauAndWarmup) {
  Schedule step({.name = "step", .base_lr = 1e-3, .milestones = {3000}, .factor = 0.1});
  EXPECT_DOUBLE_EQ(step.lr_at(2999), 1e-3);
  EXPECT_DOUBLE_EQ(step.lr_at(3000), 1e-4);

  Schedule plateau({.name = "plateau", .base_lr = 1e-4, .factor = 0.5, .patience = 1});
  plateau.observe(10);
  plateau.observe(9);   // improved
  plateau.observe(9);   // 1 bad
  EXPECT_DOUBLE_EQ(plateau.lr_at(0), 1e-4);
  plateau.observe(9.5);  // 2 bad > patience: halve
  EXPECT_DOUBLE_EQ(plateau.lr_at(0), 5e-5);
  Schedule restored({.name = "plateau", .base_lr = 1e-4, .factor = 0.5, .patience = 1});
  restored.load_state(plateau.state());
  EXPECT_DOUBLE_EQ(restored.lr_at(0), 5e-5);

  Schedule warm({.name = "constant", .base_lr = 1.0, .warmup_steps = 4});
  EXPECT_DOUBLE_EQ(warm.lr_at(0), 0.25);
  EXPECT_DOUBLE_EQ(warm.lr_at(3), 1.0);
}
