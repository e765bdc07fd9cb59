// test_transformer.cpp — the encoder layer and stack: parameter names, the post-LN and pre-LN
// formulas, float64 gradient checks over inputs and every parameter, the recurrent twin (step()
// equals the causal forward row by row, same weights), seeding, and construction errors.
#include <gtest/gtest.h>

#include "nn/transformer.h"
#include "tests/nn/nn_test_util.h"

namespace lintra::nn {
namespace {

using lintra::testing::error_of;
using lintra::testing::gradcheck_leaves;
using lintra::testing::random_var;

TransformerOptions tiny(const std::string& attention, int64_t layers = 2) {
  TransformerOptions o;
  o.n_layers = layers;
  o.d_model = 4;
  o.n_heads = 2;
  o.d_ff = 6;
  o.attention = attention;
  o.seed = 3;
  return o;
}

TEST(NnTransformer, ParameterNames) {
  TransformerOptions o = tiny("softmax", 4);
  TransformerEncoder enc(o);
  std::vector<std::string> names;
  for (auto& [n, _] : enc.named_parameters("encoder")) names.push_back(n);
  auto has = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  EXPECT_TRUE(has("encoder.layers.3.attention.query.weight"));
  EXPECT_TRUE(has("encoder.layers.0.attention.out.bias"));
  EXPECT_TRUE(has("encoder.layers.1.feed_forward.linear1.weight"));
  EXPECT_TRUE(has("encoder.layers.2.feed_forward.linear2.bias"));
  EXPECT_TRUE(has("encoder.layers.2.norm1.weight"));
  EXPECT_TRUE(has("encoder.layers.2.norm2.bias"));
  EXPECT_EQ(names.back(), "encoder.norm.bias");
  EXPECT_EQ(names.size(), 4u * (8 + 4 + 4) + 2);
  // Per layer: 4 projections (4·4 + 4) + FF (4·6 + 6 + 6·4 + 4) + 2 norms (2·4).
  EXPECT_EQ(enc.num_parameters(), 4 * (4 * 20 + 58 + 16) + 8);
  std::string d = enc.describe();
  EXPECT_HAS(d, "TransformerEncoder(layers=4, d_model=4, heads=2, d_ff=6, attention=softmax, post-LN)");
  EXPECT_HAS(d, "attention: AttentionLayer(d_model=4, heads=2, d_keys=2, d_values=2, attention=softmax)");
  // attention dropout, feed-forward dropout and residual dropout streams for each layer.
  EXPECT_EQ(enc.named_generators().size(), 4u * 3);
  EXPECT_EQ(enc.named_generators()[0].first, "layers.0.attention.inner_attention.generator");
  TransformerOptions no_final = o;
  no_final.final_norm = false;
  EXPECT_EQ(TransformerEncoder(no_final).num_parameters(), enc.num_parameters() - 8);
}

// The layer formulas, from the layer's own children.
TEST(NnTransformer, PostAndPreLayerNormFormulas) {
  for (bool pre : {false, true}) {
    TransformerOptions o = tiny("softmax", 1);
    o.pre_norm = pre;
    TransformerEncoder enc(o);
    enc.eval();
    Generator gen(1);
    Var x = random_var({2, 5, 4}, gen, DType::f32, false);
    TransformerEncoderLayer& layer = enc.layer(0);
    auto child = [&](const std::string& name) -> Module& {
      for (auto& [n, c] : layer.named_children())
        if (n == name) return *c;
      throw Error("no child " + name);
    };
    auto& attn = static_cast<AttentionLayer&>(child("attention"));
    auto& ff = static_cast<FeedForward&>(child("feed_forward"));
    auto& ln1 = static_cast<LayerNorm&>(child("norm1"));
    auto& ln2 = static_cast<LayerNorm&>(child("norm2"));
    Var want;
    if (!pre) {
      Var h = ln1.forward(add(x, attn.forward(x, {})));
      want = ln2.forward(add(h, ff.forward(h)));
    } else {
      Var h = add(x, attn.forward(ln1.forward(x), {}));
      want = add(h, ff.forward(ln2.forward(h)));
    }
    EXPECT_LT(ops::max_abs_diff(layer.forward(x, {}).data(), want.data()), 1e-6) << (pre ? "pre-LN" : "post-LN");
  }
}

TEST(NnTransformer, GradcheckOverInputsAndParameters) {
  struct Case {
    const char* attention;
    bool pre_norm;
    AttentionMasks masks;
    int64_t layers;
  };
  for (const Case& c : {Case{"softmax", false, AttentionMasks::full(), 2},
                        Case{"causal-linear", true, AttentionMasks::causal(), 1},
                        Case{"linear", false, AttentionMasks::full(), 1}}) {
    TransformerOptions o = tiny(c.attention, c.layers);
    o.pre_norm = c.pre_norm;
    TransformerEncoder enc(o);
    enc.eval();
    enc.to(DType::f64);
    Generator gen(2);
    Var x = random_var({2, 3, 4}, gen);
    std::vector<Var> leaves = {x};
    for (const Var& p : enc.parameters()) leaves.push_back(p);
    GradcheckResult r = gradcheck_leaves([&] { return enc.forward(x, c.masks); }, leaves);
    EXPECT_TRUE(r.ok) << c.attention << ": " << r.message;
  }
}

TEST(NnTransformer, RecurrentTwinEqualsCausalForward) {
  for (const char* attention : {"causal-linear", "softmax"}) {
    TransformerOptions o;
    o.n_layers = 3;
    o.d_model = 16;
    o.n_heads = 4;
    o.attention = attention;
    o.seed = 7;
    TransformerEncoder enc(o);
    enc.eval();
    ASSERT_TRUE(enc.has_recurrent());
    Generator gen(3);
    const int64_t T = 12;
    Var x = random_var({2, T, 16}, gen, DType::f32, false);
    Tensor batch = enc.forward(x, AttentionMasks::causal()).data();
    std::vector<RecurrentState> states = enc.initial_state();
    double worst = 0;
    for (int64_t t = 0; t < T; ++t) {
      NoGradGuard no_grad;
      Tensor y = enc.step(Var(x.data().select(1, t)), states).data();
      worst = std::max(worst, ops::max_abs_diff(y, batch.select(1, t)));
    }
    EXPECT_LE(worst, 1e-5) << attention;
    EXPECT_EQ(states[2].steps, T);
  }
}

TEST(NnTransformer, StepWithoutARecurrentFormIsAnError) {
  TransformerEncoder enc(tiny("linear"));
  EXPECT_FALSE(enc.has_recurrent());
  std::vector<RecurrentState> states;
  EXPECT_HAS(error_of([&] { enc.step(Var(Tensor::zeros({1, 4})), states); }),
             "attention 'linear' has no recurrent form");
  EXPECT_HAS(error_of([&] { enc.forward(Var(Tensor::zeros({1, 3, 4})), AttentionMasks::causal()); }),
             "use 'causal-linear'");
  EXPECT_HAS(error_of([&] { enc.forward(Var(Tensor::zeros({1, 3, 5}))); }), "input must be (B, N, 4)");
}

TEST(NnTransformer, SeedDeterminesWeightsAndDropout) {
  TransformerOptions o = tiny("softmax");
  TransformerEncoder a(o), b(o);
  o.seed = 4;
  TransformerEncoder c(o);
  auto pa = a.parameters(), pb = b.parameters(), pc = c.parameters();
  double diff_ab = 0, diff_ac = 0;
  for (size_t i = 0; i < pa.size(); ++i) {
    diff_ab = std::max(diff_ab, ops::max_abs_diff(pa[i].data(), pb[i].data()));
    diff_ac = std::max(diff_ac, ops::max_abs_diff(pa[i].data(), pc[i].data()));
  }
  EXPECT_EQ(diff_ab, 0.0);
  EXPECT_GT(diff_ac, 0.0);
  Generator gen(4);
  Var x = random_var({2, 5, 4}, gen, DType::f32, false);
  Tensor ya = a.forward(x).data(), yb = b.forward(x).data();  // training mode: dropout on
  EXPECT_EQ(ops::max_abs_diff(ya, yb), 0.0);
  a.eval();
  EXPECT_GT(ops::max_abs_diff(a.forward(x).data(), ya), 0.0);
}

TEST(NnTransformer, AttentionParamsReachTheVariant) {
  TransformerOptions o = tiny("softmax");
  o.attention_params = {{"attention_dropout", 0.0}, {"softmax_temp", 0.25}};
  TransformerEncoder enc(o);
  EXPECT_HAS(enc.describe(), "softmax_temp=0.25, attention_dropout=0");
  o.attention = "flash";
  EXPECT_HAS(error_of([&] { TransformerEncoder{o}; }), "unknown attention variant 'flash'");
  o.attention = "causal-linear";
  EXPECT_HAS(error_of([&] { TransformerEncoder{o}; }), "attention 'causal-linear' has no parameter 'attention_dropout'");
  o = tiny("softmax");
  o.d_model = 5;
  EXPECT_HAS(error_of([&] { TransformerEncoder{o}; }), "not divisible by n_heads");
}

}  // namespace
}  // namespace lintra::nn
