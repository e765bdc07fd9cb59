// test_init.cpp — initialiser statistics: PyTorch's Linear bound 1/√fan_in (kaiming-uniform with
// a = √5), Embedding N(0, 1), xavier and kaiming bounds, determinism by seed and stream.
#include <gtest/gtest.h>

#include <cmath>

#include "nn/embedding.h"
#include "nn/init.h"
#include "nn/linear.h"
#include "tests/nn/nn_test_util.h"

namespace lintra::nn {
namespace {

struct Stats {
  double min, max, mean, var;
};

Stats stats_of(const Var& v) {
  std::vector<double> x = v.data().to_vector<double>();
  Stats s{INFINITY, -INFINITY, 0, 0};
  for (double e : x) {
    s.min = std::min(s.min, e);
    s.max = std::max(s.max, e);
    s.mean += e;
  }
  s.mean /= double(x.size());
  for (double e : x) s.var += (e - s.mean) * (e - s.mean);
  s.var /= double(x.size());
  return s;
}

// U(−b, b): inside the bound, reaching close to it, mean 0 and variance b²/3.
void expect_uniform(const Var& v, double bound) {
  Stats s = stats_of(v);
  const double n = double(v.numel());
  EXPECT_GE(s.min, -bound);
  EXPECT_LE(s.max, bound);
  EXPECT_LT(s.min, -0.98 * bound);
  EXPECT_GT(s.max, 0.98 * bound);
  EXPECT_NEAR(s.mean, 0.0, 5 * bound / std::sqrt(3 * n));
  EXPECT_NEAR(s.var, bound * bound / 3, 0.05 * bound * bound / 3);
}

TEST(NnInit, LinearIsKaimingUniformWithBoundOneOverSqrtFanIn) {
  Generator gen(11);
  Linear fc(256, 128, true, gen);
  expect_uniform(fc.weight(), 1.0 / 16.0);
  Stats b = stats_of(fc.bias());
  EXPECT_GE(b.min, -1.0 / 16.0);
  EXPECT_LE(b.max, 1.0 / 16.0);
  EXPECT_GT(b.max - b.min, 1.0 / 16.0);  // 128 draws spread over most of the range
}

TEST(NnInit, EmbeddingIsStandardNormal) {
  Generator gen(3);
  Embedding emb(1000, 64, gen);
  Stats s = stats_of(emb.weight());
  EXPECT_NEAR(s.mean, 0.0, 0.02);
  EXPECT_NEAR(std::sqrt(s.var), 1.0, 0.02);
}

TEST(NnInit, XavierAndKaimingBounds) {
  Generator gen(5);
  Var w(Tensor::empty({300, 200}));
  init::xavier_uniform_(w, gen);
  expect_uniform(w, std::sqrt(6.0 / 500.0));
  init::kaiming_uniform_(w, gen, 0.0);
  expect_uniform(w, std::sqrt(6.0 / 200.0));
  init::xavier_uniform_(w, gen, 2.0);
  expect_uniform(w, 2.0 * std::sqrt(6.0 / 500.0));
}

TEST(NnInit, ConstantsAndNormal) {
  Generator gen(5);
  Var w(Tensor::empty({50, 40}, DType::f64));
  init::ones_(w);
  EXPECT_EQ(stats_of(w).min, 1.0);
  init::zeros_(w);
  EXPECT_EQ(stats_of(w).max, 0.0);
  init::normal_(w, gen, 2.0, 0.5);
  Stats s = stats_of(w);
  EXPECT_NEAR(s.mean, 2.0, 0.05);
  EXPECT_NEAR(std::sqrt(s.var), 0.5, 0.03);
  EXPECT_EQ(w.dtype(), DType::f64);  // initialisers keep the dtype
}

TEST(NnInit, FanInOut) {
  EXPECT_EQ(init::fan_in_out({8, 3}), std::make_pair(int64_t(3), int64_t(8)));
  EXPECT_EQ(init::fan_in_out({8, 3, 5}), std::make_pair(int64_t(15), int64_t(40)));
  EXPECT_THROW(init::fan_in_out({8}), Error);
}

TEST(NnInit, SameSeedSameWeights) {
  Generator a(42), b(42), c(43);
  Linear la(16, 8, true, a), lb(16, 8, true, b), lc(16, 8, true, c);
  EXPECT_EQ(ops::max_abs_diff(la.weight().data(), lb.weight().data()), 0.0);
  EXPECT_EQ(ops::max_abs_diff(la.bias().data(), lb.bias().data()), 0.0);
  EXPECT_GT(ops::max_abs_diff(la.weight().data(), lc.weight().data()), 0.0);
}

TEST(NnInit, ModelRngGivesDistinctStreams) {
  ModelRng rng(9);
  Generator s1 = rng.next_stream(), s2 = rng.next_stream();
  EXPECT_EQ(s1.state().seed, 9u);
  EXPECT_NE(s1.state().stream, s2.state().stream);
  EXPECT_NE(s1.state().stream, rng.init().state().stream);
  EXPECT_NE(s1.next_u64(), s2.next_u64());
}

}  // namespace
}  // namespace lintra::nn
