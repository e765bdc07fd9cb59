// test_image_recurrent_engine.cpp — the compiled recurrent form of ImageModel
// (nn/models/image_recurrent_engine.h) against its composed form, ImageModel::step().
// Invariants: for causal-linear and stateful softmax, post-LN and pre-LN, ReLU and GELU, with and
// without the final norm, concatenated and added positions, heads of 16 and of 12, at batch 1 and 3 and with 1, 2 and 3 threads (so
// rows and heads are split unevenly), every step's mixture parameters equal ImageModel::step()'s within float32 rounding, and
// the team's equal one thread's bit for bit;
// position 0 restarts the sequences; generation on the engine draws the same pixels as on the
// modules from the same generator; misuse and unsupported models are clear errors.
#include <gtest/gtest.h>

#include <vector>

#include "autograd/node.h"
#include "core/host_simd.h"
#include "nn/models/image_engine_score.h"
#include "nn/models/image_generation.h"
#include "nn/models/image_recurrent_engine.h"
#include "tests/nn/nn_test_util.h"

namespace lintra::nn {
namespace {

using lintra::testing::error_of;

struct Case {
  std::string attention;
  bool pre_norm;
  Activation activation;
  bool final_norm;
  PositionalMode positional = PositionalMode::concat;
  int64_t heads = 3;  // E = M = 48 / heads: 16 lets each thread compute its own heads' Q, K, V rows
};

TokenTransformerOptions options(const Case& c, int64_t layers = 2) {
  TokenTransformerOptions o;
  o.positional = c.positional;
  o.encoder.n_layers = layers;
  o.encoder.d_model = 48;
  o.encoder.n_heads = c.heads;
  o.encoder.d_ff = 80;
  o.encoder.dropout = 0.1;  // off in eval mode, which generation uses
  o.encoder.pre_norm = c.pre_norm;
  o.encoder.activation = c.activation;
  o.encoder.final_norm = c.final_norm;
  o.encoder.attention = c.attention;
  if (c.attention == "softmax") o.encoder.attention_params = {{"attention_dropout", 0.1}};
  return o;
}

// Largest |engine − modules| over T steps of B sequences fed the same pseudo-random pixels.
double worst_step_difference(ImageModel& m, int64_t B, int64_t T, int threads) {
  m.eval();
  NoGradGuard no_grad;
  ImageRecurrentEngine engine(m, B, T, threads);
  EXPECT_EQ(engine.threads(), threads);
  std::vector<RecurrentState> states = m.initial_state();
  std::vector<float> params(size_t(B * engine.param_dim()));
  double worst = 0;
  for (int64_t t = 0; t < T; ++t) {
    std::vector<int64_t> px(static_cast<size_t>(B));
    for (int64_t b = 0; b < B; ++b) px[size_t(b)] = (37 * t + 101 * b + 11) % 256;
    Tensor expected = m.step(Tensor::from_vector(px, {B}), t, states).data();
    engine.step(px.data(), t, params.data());
    worst = std::max(worst, ops::max_abs_diff(Tensor::from_vector(params, {B, engine.param_dim()}), expected));
  }
  return worst;
}

TEST(NnImageRecurrentEngine, EveryStepEqualsTheModulesStep) {
  const std::vector<Case> cases = {{"causal-linear", false, Activation::relu, true},
                                   {"causal-linear", true, Activation::gelu, false},
                                   {"softmax", false, Activation::gelu, true},
                                   {"softmax", true, Activation::relu, true},
                                   {"causal-linear", false, Activation::relu, true, PositionalMode::add},
                                   // E = M = 12: the QKV product split by rows, with a barrier after it
                                   {"causal-linear", false, Activation::relu, true, PositionalMode::concat, 4},
                                   {"softmax", true, Activation::gelu, false, PositionalMode::concat, 4}};
  for (const Case& c : cases)
    for (int64_t B : {1, 3})
      for (int threads : {1, 2, 3}) {
        ImageModel m(options(c), 7);
        EXPECT_LT(worst_step_difference(m, B, 24, threads), 2e-5)
            << c.attention << (c.pre_norm ? " pre-LN " : " post-LN ") << activation_name(c.activation)
            << (c.final_norm ? " final norm" : "") << " PE " << positional_mode_name(c.positional) << " heads "
            << c.heads << " B=" << B << " threads=" << threads;
      }
}

// Every value is computed by the same code in the same order whatever the team (each thread keeps
// whole copies of the D-wide rows and the products are split by rows or heads), so 2 and 3 threads
// give one thread's parameters bit for bit.
TEST(NnImageRecurrentEngine, TheTeamGivesOneThreadsResultBitForBit) {
  for (const Case& c : std::vector<Case>{{"causal-linear", false, Activation::relu, true},
                                         {"softmax", true, Activation::gelu, false, PositionalMode::concat, 4}}) {
    ImageModel m(options(c), 13);
    m.eval();
    NoGradGuard no_grad;
    const int64_t B = 2, T = 12;
    std::vector<std::vector<float>> first;
    for (int threads : {1, 2, 3}) {
      ImageRecurrentEngine engine(m, B, T, threads);
      std::vector<float> params(size_t(B * engine.param_dim()));
      for (int64_t t = 0; t < T; ++t) {
        const int64_t px[2] = {(13 * t + 5) % 256, (71 * t + 200) % 256};
        engine.step(px, t, params.data());
        if (threads == 1) first.push_back(params);
        else ASSERT_EQ(params, first[size_t(t)]) << c.attention << " threads " << threads << " step " << t;
      }
    }
  }
}

// Rounds a Linear's weight to bfloat16 in place (the bias stays float32, as the engine keeps it).
void round_weight_to_bf16(const Linear& lin) {
  Tensor w = lin.weight().data().contiguous();
  float* p = w.data<float>();
  for (int64_t i = 0; i < w.numel(); ++i) p[i] = simd::from_bf16(simd::to_bf16(p[i]));
  Tensor shared = lin.weight().data();  // shares the parameter's storage
  shared.copy_(w);
}

// bf16 weights change nothing but each weight's rounding: the bf16 engine equals, bit for bit, the
// float32 engine of the same model with its product weights rounded to bf16 — at 1 and 2 threads, for
// both raw attention steps — and stays within bf16's error of the float32 model.
TEST(NnImageRecurrentEngine, Bf16WeightsEqualTheFloat32EngineOfTheRoundedWeights) {
  for (const char* attention : {"causal-linear", "softmax"})
    for (int threads : {1, 2}) {
      ImageModel m(options({attention, false, Activation::gelu, true}), 9), rounded(options({attention, false, Activation::gelu, true}), 9);
      m.eval();
      rounded.eval();
      NoGradGuard no_grad;
      TransformerEncoder& enc = rounded.trunk().encoder();
      for (int64_t i = 0; i < enc.n_layers(); ++i) {
        AttentionLayer& a = enc.layer(i).attention();
        for (const Linear* lin : {&a.query(), &a.key(), &a.value(), &a.out(), &enc.layer(i).feed_forward().linear1(),
                                  &enc.layer(i).feed_forward().linear2()})
          round_weight_to_bf16(*lin);
      }
      round_weight_to_bf16(rounded.head());
      const int64_t B = 2, T = 16;
      ImageRecurrentEngine bf16(m, B, T, threads, EngineWeights::bf16), f32_of_rounded(rounded, B, T, threads, EngineWeights::f32),
          f32(m, B, T, threads, EngineWeights::f32);
      EXPECT_EQ(bf16.weights(), EngineWeights::bf16);
      std::vector<float> a(size_t(B * bf16.param_dim())), b(a.size()), c(a.size());
      double worst = 0, scale = 0;
      for (int64_t t = 0; t < T; ++t) {
        const int64_t px[2] = {(29 * t + 3) % 256, (61 * t + 140) % 256};
        bf16.step(px, t, a.data());
        f32_of_rounded.step(px, t, b.data());
        f32.step(px, t, c.data());
        ASSERT_EQ(a, b) << attention << " threads " << threads << " step " << t;
        for (size_t i = 0; i < a.size(); ++i) {
          worst = std::max(worst, double(std::abs(a[i] - c[i])));
          scale = std::max(scale, double(std::abs(c[i])));
        }
      }
      // Rounding moves each weight by ≤ 2^-8 relative; through the layers the outputs move by a few
      // times that, relative to their size — and by more than float32 rounding would.
      EXPECT_GT(worst, 1e-6 * scale) << attention;
      EXPECT_LT(worst, 0.05 * scale) << attention;
    }
}

// Scored token by token on the engine, images get ImageModel::loss()'s NLL (float32 weights, within
// float32 rounding); bf16 weights move it, by little; bad pixels are clear errors.
TEST(NnImageRecurrentEngine, ScoringOnTheEngineGivesTheModelsLoss) {
  for (const char* attention : {"causal-linear", "softmax"}) {
    ImageModel m(options({attention, false, Activation::relu, true}), 11);
    std::vector<int64_t> px(3 * 40);
    for (size_t i = 0; i < px.size(); ++i) px[i] = int64_t((i * 97 + 13) % 256);
    const Tensor images = Tensor::from_vector(px, {3, 40});
    m.eval();
    double want = 0;
    {
      NoGradGuard no_grad;
      ModelBatch batch;
      batch.inputs = images;
      const MetricSums sums = m.loss(batch).sums;
      want = sums.at("nll_sum");
      EXPECT_EQ(sums.at("count"), 3 * 39);
    }
    m.train();
    const MetricSums f32 = engine_nll_sums(m, images, EngineWeights::f32);
    const MetricSums bf16 = engine_nll_sums(m, images, EngineWeights::bf16);
    EXPECT_TRUE(m.is_training()) << "the training mode is restored";
    EXPECT_EQ(f32.at("count"), 3 * 39);
    EXPECT_NEAR(f32.at("nll_sum"), want, 1e-4 * std::abs(want)) << attention;
    EXPECT_NE(bf16.at("nll_sum"), f32.at("nll_sum")) << attention;
    EXPECT_NEAR(bf16.at("nll_sum"), want, 0.01 * std::abs(want)) << attention;
  }
  ImageModel m(options({"causal-linear", false, Activation::relu, true}), 1);
  EXPECT_HAS(error_of([&] { engine_nll_sums(m, Tensor::from_vector(std::vector<int64_t>{1, 300}, {1, 2}), EngineWeights::f32); }),
             "outside");
  EXPECT_HAS(error_of([&] { engine_nll_sums(m, Tensor::from_vector(std::vector<int64_t>{1}, {1, 1}), EngineWeights::f32); }),
             "L >= 2");
}

TEST(NnImageRecurrentEngine, PositionZeroRestartsTheSequences) {
  for (const char* attention : {"causal-linear", "softmax"}) {
    ImageModel m(options({attention, false, Activation::relu, true}), 3);
    m.eval();
    ImageRecurrentEngine engine(m, 2, 8, 2);
    std::vector<float> first(size_t(2 * engine.param_dim())), again(first.size()), other(first.size());
    const int64_t a[2] = {5, 200}, b[2] = {17, 3};
    engine.step(a, 0, first.data());
    engine.step(b, 1, other.data());
    engine.step(a, 0, again.data());
    EXPECT_EQ(first, again) << attention;
    engine.step(b, 1, again.data());
    EXPECT_EQ(other, again) << attention;
  }
}

TEST(NnImageRecurrentEngine, GenerationDrawsTheSamePixelsAsTheModules) {
  for (const char* attention : {"causal-linear", "softmax"}) {
    ImageModel m(options({attention, false, Activation::relu, true}), 5);
    Generator g1(42), g2(42);
    Tensor fast = generate_recurrent(m, 2, 64, g1, {}, RecurrentBackend::engine);
    Tensor slow = generate_recurrent(m, 2, 64, g2, {}, RecurrentBackend::modules);
    EXPECT_EQ(fast.to_vector<int64_t>(), slow.to_vector<int64_t>()) << attention;
    EXPECT_EQ(g1.state(), g2.state());
  }
}

TEST(NnImageRecurrentEngine, MisuseAndUnsupportedModelsAreClearErrors) {
  ImageModel m(options({"causal-linear", false, Activation::relu, true}), 1);
  ImageRecurrentEngine engine(m, 1, 4, 1);
  std::vector<float> out(size_t(engine.param_dim()));
  const int64_t px = 3, bad = 256;
  EXPECT_HAS(error_of([&] { engine.step(&px, 2, out.data()); }), "position 2 out of order (expected 0 or 0)");
  EXPECT_HAS(error_of([&] { engine.step(&bad, 0, out.data()); }), "pixel 256 of sequence 0 is outside [0, 256)");
  for (int64_t t = 0; t < 4; ++t) engine.step(&px, t, out.data());
  EXPECT_HAS(error_of([&] { engine.step(&px, 4, out.data()); }), "past the capacity of 4 steps");
  EXPECT_HAS(error_of([&] { ImageRecurrentEngine(m, 0, 4); }), "batch and max_steps must be positive");

  TokenTransformerOptions lsh = options({"reformer", false, Activation::relu, true}, 1);
  lsh.encoder.attention_params = {{"chunk_size", int64_t(4)}};
  ImageModel reformer(lsh, 1);
  EXPECT_HAS(ImageRecurrentEngine::unsupported_reason(reformer), "attention 'reformer' has no raw recurrent step");
  EXPECT_HAS(error_of([&] { ImageRecurrentEngine(reformer, 1, 4); }), "cannot run on the engine");
  Generator g(1);
  EXPECT_NO_THROW(generate_recurrent(m, 1, 8, g, {}, RecurrentBackend::engine));
  ImageModel f64(options({"causal-linear", false, Activation::relu, true}), 1);
  f64.to(DType::f64);
  EXPECT_HAS(ImageRecurrentEngine::unsupported_reason(f64), "not float32");
  EXPECT_HAS(error_of([&] { generate_recurrent(f64, 1, 8, g, {}, RecurrentBackend::engine); }),
             "the engine cannot run this model: its parameters are float64, not float32");
  EXPECT_NO_THROW(generate_recurrent(f64, 1, 8, g));  // automatic: falls back to the modules
}

}  // namespace
}  // namespace lintra::nn
