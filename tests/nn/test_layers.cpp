// test_layers.cpp — Linear, Embedding, LayerNorm, Dropout, FeedForward, PositionalEncoding:
// values against direct formulas, float64 gradient checks over inputs and parameters, dropout's
// train/eval behaviour, and sinusoidal encoding values at a few positions.
#include <gtest/gtest.h>

#include <cmath>

#include "nn/dropout.h"
#include "nn/embedding.h"
#include "nn/init.h"
#include "nn/feed_forward.h"
#include "nn/layer_norm.h"
#include "nn/linear.h"
#include "nn/positional_encoding.h"
#include "tests/nn/nn_test_util.h"

namespace lintra::nn {
namespace {

using lintra::testing::error_of;
using lintra::testing::gradcheck_leaves;
using lintra::testing::random_var;

std::vector<Var> with_params(const Module& m, std::vector<Var> leaves) {
  for (const Var& p : m.parameters()) leaves.push_back(p);
  return leaves;
}

TEST(NnLayers, LinearMatchesFormula) {
  Generator gen(1);
  Linear fc(3, 2, true, gen);
  Var x = random_var({4, 3}, gen, DType::f32, false);
  Tensor expect = ops::add(ops::matmul(x.data(), fc.weight().data().transpose(0, 1)), fc.bias().data());
  EXPECT_LT(ops::max_abs_diff(fc.forward(x).data(), expect), 1e-6);
  Var x3 = random_var({2, 5, 3}, gen, DType::f32, false);
  EXPECT_EQ(fc.forward(x3).shape(), Shape({2, 5, 2}));
  EXPECT_HAS(error_of([&] { fc.forward(random_var({4, 5}, gen, DType::f32, false)); }), "linear");
}

TEST(NnLayers, LinearGradcheck) {
  Generator gen(2);
  Linear fc(3, 4, true, gen);
  fc.to(DType::f64);
  Var x = random_var({2, 3, 3}, gen);
  GradcheckResult r = gradcheck_leaves([&] { return fc.forward(x); }, with_params(fc, {x}));
  EXPECT_TRUE(r.ok) << r.message;
}

TEST(NnLayers, EmbeddingPicksRowsAndGradcheck) {
  Generator gen(3);
  Embedding emb(5, 3, gen);
  Tensor idx = Tensor::from_vector(std::vector<int64_t>{4, 0, 4, 2}, {2, 2});
  Var y = emb.forward(idx);
  EXPECT_EQ(y.shape(), Shape({2, 2, 3}));
  EXPECT_EQ(y.data().at({1, 0, 2}), emb.weight().data().at({4, 2}));
  emb.to(DType::f64);
  GradcheckResult r = gradcheck_leaves([&] { return emb.forward(idx); }, emb.parameters());
  EXPECT_TRUE(r.ok) << r.message;
  EXPECT_HAS(error_of([&] { emb.forward(Tensor::ones({2})); }), "int64");
}

TEST(NnLayers, LayerNormNormalisesAndGradcheck) {
  Generator gen(4);
  LayerNorm ln(6);
  Var x = random_var({3, 6}, gen, DType::f32, false, -3, 5);
  Tensor y = ln.forward(x).data();
  Tensor mean = ops::mean(y, {1});
  Tensor var = ops::mean(ops::square(y), {1});
  for (int64_t r = 0; r < 3; ++r) {
    EXPECT_NEAR(mean.at({r}), 0.0, 1e-5);
    EXPECT_NEAR(var.at({r}), 1.0, 1e-3);
  }
  ln.to(DType::f64);
  Var gamma = ln.weight(), beta = ln.bias();  // handles to the module's parameters
  init::normal_(gamma, gen);                   // non-trivial γ, β for the check
  init::normal_(beta, gen);
  Var x64 = random_var({2, 3, 6}, gen);
  GradcheckResult r = gradcheck_leaves([&] { return ln.forward(x64); }, with_params(ln, {x64}));
  EXPECT_TRUE(r.ok) << r.message;
  EXPECT_HAS(error_of([&] { ln.forward(random_var({2, 5}, gen)); }), "must end in dim 6");
}

TEST(NnLayers, DropoutTrainAndEval) {
  Dropout drop(0.25, Generator(7, 1));
  Var x(Tensor::ones({200, 100}));
  Tensor y = drop.forward(x).data();
  std::vector<float> v = y.to_vector<float>();
  int64_t zeros = 0;
  for (float e : v) {
    if (e == 0) ++zeros;
    else EXPECT_FLOAT_EQ(e, 1.0f / 0.75f);
  }
  EXPECT_NEAR(double(zeros) / double(v.size()), 0.25, 0.01);
  // A different mask next call; the same mask from the same generator state.
  GeneratorState s = drop.generator().state();
  Tensor y2 = drop.forward(x).data();
  EXPECT_GT(ops::max_abs_diff(y, y2), 0.0);
  drop.generator().set_state(s);
  EXPECT_EQ(ops::max_abs_diff(drop.forward(x).data(), y2), 0.0);
  // Eval: the identity, and the generator does not move.
  drop.eval();
  s = drop.generator().state();
  Var z = drop.forward(x);
  EXPECT_EQ(z.impl(), x.impl());
  EXPECT_EQ(drop.generator().state(), s);
  EXPECT_HAS(error_of([] { Dropout(1.0, Generator()); }), "outside [0, 1)");
}

TEST(NnLayers, DropoutGradcheckWithAFixedMask) {
  Dropout drop(0.4, Generator(8, 1));
  Generator gen(8);
  Var x = random_var({4, 5}, gen);
  const GeneratorState s = drop.generator().state();
  GradcheckResult r = gradcheck_leaves(
      [&] {
        drop.generator().set_state(s);
        return drop.forward(x);
      },
      {x});
  EXPECT_TRUE(r.ok) << r.message;
}

TEST(NnLayers, FeedForwardMatchesCompositionAndGradcheck) {
  for (Activation act : {Activation::relu, Activation::gelu}) {
    Generator gen(9);
    FeedForward ff(4, 6, act, 0.1, gen, Generator(9, 1));
    ff.eval();
    ff.to(DType::f64);
    Var x = random_var({2, 3, 4}, gen);
    Var w1 = ff.parameter("linear1.weight"), b1 = ff.parameter("linear1.bias");
    Var w2 = ff.parameter("linear2.weight"), b2 = ff.parameter("linear2.bias");
    Var expect = linear(apply_activation(act, linear(x, w1, b1)), w2, b2);
    EXPECT_LT(ops::max_abs_diff(ff.forward(x).data(), expect.data()), 1e-12);
    GradcheckResult r = gradcheck_leaves([&] { return ff.forward(x); }, with_params(ff, {x}));
    EXPECT_TRUE(r.ok) << activation_name(act) << ": " << r.message;
  }
  EXPECT_EQ(activation_from_string("gelu"), Activation::gelu);
  EXPECT_HAS(error_of([] { activation_from_string("swish"); }), "unknown activation 'swish'");
}

TEST(NnLayers, SinusoidalValuesAtSomePositions) {
  Tensor pe = sinusoidal_encoding(8, 6, 0, DType::f64);
  for (int64_t c = 0; c < 6; ++c) EXPECT_EQ(pe.at({0, c}), c % 2 == 0 ? 0.0 : 1.0);  // position 0: sin 0, cos 0
  // Position 1 of a 4-wide table: [sin 1, cos 1, sin 0.01, cos 0.01] (ω = 10000^(−2i/4)).
  Tensor p4 = sinusoidal_encoding(2, 4, 0, DType::f64);
  EXPECT_NEAR(p4.at({1, 0}), std::sin(1.0), 1e-15);
  EXPECT_NEAR(p4.at({1, 1}), std::cos(1.0), 1e-15);
  EXPECT_NEAR(p4.at({1, 2}), std::sin(0.01), 1e-15);
  EXPECT_NEAR(p4.at({1, 3}), std::cos(0.01), 1e-15);
  // Position 5, channels 2 and 3 of the 6-wide table: ω_1 = 10000^(−2/6).
  const double w1 = std::pow(10000.0, -2.0 / 6.0);
  EXPECT_NEAR(pe.at({5, 2}), std::sin(5 * w1), 1e-14);
  EXPECT_NEAR(pe.at({5, 3}), std::cos(5 * w1), 1e-14);
  // start offsets rows.
  Tensor shifted = sinusoidal_encoding(3, 6, 5, DType::f64);
  EXPECT_EQ(ops::max_abs_diff(shifted, pe.narrow(0, 5, 3)), 0.0);
  // An odd width ends with a sin channel.
  Tensor odd = sinusoidal_encoding(3, 5, 0, DType::f64);
  EXPECT_NEAR(odd.at({2, 4}), std::sin(2 * std::pow(10000.0, -4.0 / 5.0)), 1e-15);
}

TEST(NnLayers, PositionalEncodingConcatAndAdd) {
  Generator gen(10);
  PositionalEncoding cat_pe(8, PositionalMode::concat);
  EXPECT_EQ(cat_pe.input_dim(), 4);
  Var x = random_var({2, 3, 4}, gen);
  Var y = cat_pe.forward(x);
  ASSERT_EQ(y.shape(), Shape({2, 3, 8}));
  Tensor pe = sinusoidal_encoding(3, 4, 0, DType::f64);
  EXPECT_EQ(ops::max_abs_diff(y.data().narrow(2, 0, 4), x.data()), 0.0);
  EXPECT_EQ(ops::max_abs_diff(y.data().narrow(2, 4, 4).select(0, 1), pe), 0.0);
  // step(t) is row t of forward.
  Var y_t = cat_pe.step(Var(x.data().select(1, 2)), 2);
  EXPECT_EQ(ops::max_abs_diff(y_t.data(), y.data().select(1, 2)), 0.0);

  PositionalEncoding add_pe(4, PositionalMode::add);
  Var z = add_pe.forward(x, 7);
  EXPECT_LT(ops::max_abs_diff(z.data(), ops::add(x.data(), sinusoidal_encoding(3, 4, 7, DType::f64))), 1e-15);
  GradcheckResult r = gradcheck_leaves([&] { return cat_pe.forward(x); }, {x});
  EXPECT_TRUE(r.ok) << r.message;
  EXPECT_HAS(error_of([] { PositionalEncoding(7, PositionalMode::concat); }), "even d_model");
  EXPECT_HAS(error_of([&] { cat_pe.forward(random_var({2, 3, 8}, gen)); }), "must be (B, N, 4)");
}

}  // namespace
}  // namespace lintra::nn
