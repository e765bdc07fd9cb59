// test_variants.cpp — each built-in variant against an independent reference, plus the
// AttentionLayer around them:
//   causal-linear = (φ(Q)φ(K)ᵀ ∘ tril)·V / (row sums + eps), values and gradients (and its numerator
//                   alone, composed and as used);
//   linear        = (φ(Q)φ(K)ᵀ)·V / (row sums + eps), with and without key lengths;
//   φ             = elu + 1 on a head-split view (computed on its dense layout) equals φ on a copy;
//   softmax       = a loop of softmax over prefixes under the causal mask; the temperature and
//                   attention dropout parameters; an empty row gives zeros; the recurrent cache.
#include <gtest/gtest.h>

#include <cmath>

#include "nn/attention/attention_layer.h"
#include "nn/attention/causal_linear_attention.h"
#include "nn/attention/feature_maps.h"
#include "nn/attention/registry.h"
#include "tests/nn/nn_test_util.h"

namespace lintra::nn {
namespace {

using lintra::testing::error_of;
using lintra::testing::gradcheck_leaves;
using lintra::testing::random_var;

constexpr int64_t B = 2, H = 2, N = 6, E = 3, M = 4;

std::shared_ptr<InnerAttention> make(const std::string& name, const ParamMap& params = {}, int64_t e = E,
                                     int64_t m = M) {
  auto a = builtin_attention_registry().create(
      name, params, AttentionContext{.query_dim = e, .value_dim = m, .n_heads = H, .generator = Generator(3, 9)});
  a->eval();
  return a;
}

Tensor lengths_of(std::vector<int64_t> l) { return Tensor::from_vector(l, {int64_t(l.size())}); }

// (φ(Q)φ(K)ᵀ ∘ mask)·V / (row sums + eps): the quadratic form of (causal) linear attention.
Var quadratic_linear(const Var& q, const Var& k, const Var& v, const Tensor& mask, double eps = 1e-6) {
  Var a = matmul(elu_feature_map(q), transpose(elu_feature_map(k), 2, 3));  // (B, H, N, S)
  if (mask.defined()) a = mul(a, Var(mask));
  return div(matmul(a, v), add(sum(a, {3}, true), eps));
}

// Gradients of Σ out·W with respect to q, k, v.
std::vector<Tensor> grads_of(const Var& out, const Tensor& w, std::vector<Var> leaves) {
  for (Var& x : leaves) x.zero_grad();
  sum(mul(out, Var(w))).backward();
  std::vector<Tensor> g;
  for (Var& x : leaves) {
    g.push_back(x.grad());
    x.zero_grad();
  }
  return g;
}

void expect_same_values_and_grads(const Var& got, const Var& want, const std::vector<Var>& leaves, Generator& gen,
                                  const std::string& what) {
  EXPECT_LE(ops::max_abs_diff(got.data(), want.data()), 1e-12) << what;
  Tensor w = Tensor::uniform(got.shape(), gen, -1, 1, DType::f64);
  std::vector<Tensor> g1 = grads_of(got, w, leaves), g2 = grads_of(want, w, leaves);
  for (size_t i = 0; i < g1.size(); ++i) EXPECT_LE(ops::max_abs_diff(g1[i], g2[i]), 1e-10) << what << ", input " << i;
}

TEST(NnAttentionVariants, CausalLinearEqualsMaskedQuadraticForm) {
  Generator gen(1);
  Var q = random_var({B, H, N, E}, gen), k = random_var({B, H, N, E}, gen), v = random_var({B, H, N, M}, gen);
  auto attn = make("causal-linear");
  Tensor tril = TriangularCausalMask(N).float_matrix(DType::f64);
  expect_same_values_and_grads(attn->forward(q, k, v, AttentionMasks::causal()), quadratic_linear(q, k, v, tril),
                               {q, k, v}, gen, "causal-linear");
  // Key lengths zero the padded columns.
  Tensor keep = LengthMask(lengths_of({4, N}), N).float_matrix(DType::f64).view({B, 1, 1, N});
  expect_same_values_and_grads(attn->forward(q, k, v, AttentionMasks::causal().with_key_lengths(lengths_of({4, N}))),
                               quadratic_linear(q, k, v, ops::mul(tril, keep)), {q, k, v}, gen,
                               "causal-linear with key lengths");
  // The eps parameter reaches the normaliser.
  auto big_eps = make("causal-linear", {{"eps", 0.5}});
  EXPECT_LE(ops::max_abs_diff(big_eps->forward(q, k, v, AttentionMasks::causal()).data(),
                              quadratic_linear(q, k, v, tril, 0.5).data()),
            1e-12);
}

TEST(NnAttentionVariants, CausalNumeratorEqualsTrilProduct) {
  Generator gen(2);
  Var pq = random_var({B, H, N, E}, gen, DType::f64, true, 0, 2), pk = random_var({B, H, N, E}, gen, DType::f64, true, 0, 2);
  Var v = random_var({B, H, N, M}, gen);
  Tensor tril = TriangularCausalMask(N).float_matrix(DType::f64);
  auto want = [&] { return matmul(mul(matmul(pq, transpose(pk, 2, 3)), Var(tril)), v); };
  expect_same_values_and_grads(causal_numerator_composed(pq, pk, v), want(), {pq, pk, v}, gen, "composed numerator");
  expect_same_values_and_grads(causal_numerator(pq, pk, v), want(), {pq, pk, v}, gen, "numerator in use");
}

TEST(NnAttentionVariants, FeatureMapOnHeadSplitViewsEqualsTheMapOnACopy) {
  // AttentionLayer hands the variants (B, N, H, E) projections viewed as (B, H, N, E); φ takes them
  // on their dense layout and returns the same view. Values and gradients must equal φ of a
  // contiguous copy, for that view and for views that are not a permutation of dense memory.
  Generator gen(6);
  Var dense = random_var({B, N, H, E}, gen, DType::f64, true, -2, 2);
  // Each side builds its own view: a graph is backpropagated once.
  auto view = [&] { return permute(dense, {0, 2, 1, 3}); };  // (B, H, N, E), rows with stride H·E
  ASSERT_FALSE(view().data().is_contiguous());
  Var got = elu_feature_map(view());
  EXPECT_EQ(got.shape(), (Shape{B, H, N, E}));
  expect_same_values_and_grads(got, elu_feature_map(contiguous(view())), {dense}, gen, "head-split view");
  Var wide = random_var({B, 2 * N, H, E}, gen, DType::f64, true, -2, 2);
  auto strided = [&] { return permute(narrow(wide, 1, 1, N), {0, 2, 1, 3}); };  // not dense permuted back either
  expect_same_values_and_grads(elu_feature_map(strided()), elu_feature_map(contiguous(strided())), {wide}, gen,
                               "strided view");
}

TEST(NnAttentionVariants, LinearEqualsQuadraticForm) {
  Generator gen(3);
  Var q = random_var({B, H, 4, E}, gen), k = random_var({B, H, N, E}, gen), v = random_var({B, H, N, M}, gen);
  auto attn = make("linear");
  expect_same_values_and_grads(attn->forward(q, k, v, {}), quadratic_linear(q, k, v, Tensor()), {q, k, v}, gen,
                               "linear");
  Tensor keep = LengthMask(lengths_of({2, 5}), N).float_matrix(DType::f64).view({B, 1, 1, N});
  expect_same_values_and_grads(attn->forward(q, k, v, AttentionMasks::full().with_key_lengths(lengths_of({2, 5}))),
                               quadratic_linear(q, k, v, keep), {q, k, v}, gen, "linear with key lengths");
  EXPECT_HAS(error_of([&] { attn->forward(q, k, v, AttentionMasks::causal()); }), "use 'causal-linear'");
}

TEST(NnAttentionVariants, SoftmaxCausalEqualsLoopOverPrefixes) {
  Generator gen(4);
  Var q = random_var({B, H, N, E}, gen, DType::f64, true, -2, 2), k = random_var({B, H, N, E}, gen, DType::f64, true, -2, 2);
  Var v = random_var({B, H, N, M}, gen);
  auto attn = make("softmax");
  std::vector<Var> rows;
  for (int64_t i = 0; i < N; ++i) {
    Var scores = mul(matmul(narrow(q, 2, i, 1), transpose(narrow(k, 2, 0, i + 1), 2, 3)), 1.0 / std::sqrt(double(E)));
    rows.push_back(matmul(softmax(scores, -1), narrow(v, 2, 0, i + 1)));  // (B, H, 1, M)
  }
  expect_same_values_and_grads(attn->forward(q, k, v, AttentionMasks::causal()), cat(rows, 2), {q, k, v}, gen,
                               "softmax causal");
}

TEST(NnAttentionVariants, SoftmaxTemperatureAndKeyLengths) {
  Generator gen(5);
  Var q = random_var({B, H, 4, E}, gen), k = random_var({B, H, N, E}, gen), v = random_var({B, H, N, M}, gen);
  auto attn = make("softmax", {{"softmax_temp", 0.3}});
  Var want = matmul(softmax(mul(matmul(q, transpose(k, 2, 3)), 0.3), -1), v);
  expect_same_values_and_grads(attn->forward(q, k, v, {}), want, {q, k, v}, gen, "softmax temp 0.3");
  // Key lengths (3, 0): the first sequence sees 3 keys; the second none, and outputs zeros.
  Var y = attn->forward(q, k, v, AttentionMasks::full().with_key_lengths(lengths_of({3, 0})));
  Var first = matmul(softmax(mul(matmul(narrow(q, 0, 0, 1), transpose(narrow(narrow(k, 0, 0, 1), 2, 0, 3), 2, 3)), 0.3), -1),
                     narrow(narrow(v, 0, 0, 1), 2, 0, 3));
  EXPECT_LE(ops::max_abs_diff(y.data().narrow(0, 0, 1), first.data()), 1e-12);
  EXPECT_EQ(ops::max_abs_diff(y.data().narrow(0, 1, 1), Tensor::zeros({1, H, 4, M}, DType::f64)), 0.0);
}

TEST(NnAttentionVariants, SoftmaxAttentionDropout) {
  Generator gen(6);
  Var q = random_var({B, H, N, E}, gen), k = random_var({B, H, N, E}, gen), v = random_var({B, H, N, M}, gen);
  auto attn = make("softmax", {{"attention_dropout", 0.5}});
  Tensor eval_out = attn->forward(q, k, v, {}).data();
  EXPECT_EQ(ops::max_abs_diff(attn->forward(q, k, v, {}).data(), eval_out), 0.0);  // eval: no dropout
  attn->train();
  Tensor a = attn->forward(q, k, v, {}).data(), b = attn->forward(q, k, v, {}).data();
  EXPECT_GT(ops::max_abs_diff(a, eval_out), 1e-3);
  EXPECT_GT(ops::max_abs_diff(a, b), 1e-3);  // a new mask per call
  ASSERT_EQ(attn->named_generators().size(), 1u);
  auto none = make("softmax", {{"attention_dropout", 0.0}});
  none->train();
  EXPECT_EQ(ops::max_abs_diff(none->forward(q, k, v, {}).data(), eval_out), 0.0);
}

TEST(NnAttentionVariants, SoftmaxCacheCanBeClonedToBranch) {
  Generator gen(7);
  auto attn = make("softmax");
  auto rand = [&](int64_t d) { return Var(Tensor::uniform({B, H, d}, gen, -1, 1)); };
  RecurrentState state;
  for (int t = 0; t < 20; ++t) attn->step(rand(E), rand(E), rand(M), state);
  EXPECT_GE(state.at("K").size(2), 20);  // a buffer with spare capacity
  RecurrentState branch = state.clone();
  Var q = rand(E), k = rand(E), v = rand(M);
  Tensor y1 = attn->step(q, k, v, state).data();
  attn->step(rand(E), rand(E), rand(M), state);  // the original moves on
  Tensor y2 = attn->step(q, k, v, branch).data();
  EXPECT_EQ(ops::max_abs_diff(y1, y2), 0.0);
  EXPECT_EQ(branch.steps, 21);
  EXPECT_HAS(error_of([&] { attn->step(Var(Tensor::zeros({B + 1, H, E})), rand(E), rand(M), state); }), "differ");
  EXPECT_HAS(error_of([&] { attn->step(Var(Tensor::zeros({B + 1, H, E})), Var(Tensor::zeros({B + 1, H, E})),
                                       Var(Tensor::zeros({B + 1, H, M})), state); }),
             "do not match the cached keys");
}

TEST(NnAttentionVariants, CausalLinearStateIsConstantSize) {
  Generator gen(8);
  auto attn = make("causal-linear");
  RecurrentState state;
  for (int t = 0; t < 30; ++t)
    attn->step(Var(Tensor::uniform({B, H, E}, gen)), Var(Tensor::uniform({B, H, E}, gen)),
               Var(Tensor::uniform({B, H, M}, gen)), state);
  EXPECT_EQ(state.at("S").shape(), Shape({B, H, E, M}));
  EXPECT_EQ(state.at("Z").shape(), Shape({B, H, E}));
  EXPECT_EQ(state.values.size(), 2u);
}

// --- AttentionLayer ------------------------------------------------------------------------------

TEST(NnAttentionLayer, NamesShapesAndGradcheck) {
  Generator init(10);
  AttentionLayer layer(4, 2, 0, 3, make("softmax", {}, 2, 3), init);
  std::vector<std::string> names;
  for (auto& [n, _] : layer.named_parameters()) names.push_back(n);
  EXPECT_EQ(names, std::vector<std::string>({"query.weight", "query.bias", "key.weight", "key.bias", "value.weight",
                                             "value.bias", "out.weight", "out.bias"}));
  EXPECT_EQ(layer.parameter("value.weight").shape(), Shape({6, 4}));  // H·M × D
  EXPECT_EQ(layer.parameter("out.weight").shape(), Shape({4, 6}));
  EXPECT_TRUE(layer.inner().is_training());  // the child took the layer's mode
  layer.eval();                              // attention dropout off for the check
  layer.to(DType::f64);
  Generator gen(11);
  Var xq = random_var({2, 3, 4}, gen), xkv = random_var({2, 5, 4}, gen);
  EXPECT_EQ(layer.forward(xq, xkv, xkv, {}).shape(), Shape({2, 3, 4}));
  std::vector<Var> leaves = {xq, xkv};
  for (const Var& p : layer.parameters()) leaves.push_back(p);
  GradcheckResult r = gradcheck_leaves([&] { return layer.forward(xq, xkv, xkv, {}); }, leaves);
  EXPECT_TRUE(r.ok) << r.message;
  EXPECT_HAS(error_of([&] { layer.forward(random_var({2, 3, 5}, gen), {}); }), "inputs must be (B, L, 4)");
  EXPECT_HAS(error_of([&] { AttentionLayer(5, 2, 0, 0, make("softmax"), init); }), "not divisible by n_heads");
}

TEST(NnAttentionLayer, StepEqualsCausalForward) {
  for (const char* name : {"causal-linear", "softmax"}) {
    Generator init(12);
    AttentionLayer layer(8, 2, 0, 0, make(name, {}, 4, 4), init);
    layer.eval();
    Generator gen(13);
    Var x = random_var({2, 7, 8}, gen, DType::f32, false);
    Tensor batch = layer.forward(x, AttentionMasks::causal()).data();
    RecurrentState state;
    for (int64_t t = 0; t < 7; ++t) {
      Tensor y = layer.step(Var(x.data().select(1, t)), state).data();
      EXPECT_LE(ops::max_abs_diff(y, batch.select(1, t)), 1e-5) << name << " step " << t;
    }
    EXPECT_HAS(error_of([&] { layer.step(x, state); }), "must be (B, 8)");
  }
}

}  // namespace
}  // namespace lintra::nn
