// test_ctc.cpp — CTC loss, greedy decoding and edit distance (nn/losses/ctc.h).
// Invariants: the loss equals −ln of the brute-force sum over all C^T frame paths that collapse
// (merge repeats, drop blanks) to the target, for targets with repeats and the empty target, in a
// batch with different input and target lengths; frames past T_b change nothing; the gradient passes a
// float64 gradcheck through log_softmax (and directly on unnormalised inputs); reductions; impossible
// alignments, zero-length inputs and bad labels throw errors naming the sequence; greedy decoding and
// the Levenshtein distance on hand examples.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "nn/losses/ctc.h"
#include "tests/nn/nn_test_util.h"

namespace lintra::nn {
namespace {

using lintra::testing::error_of;

std::vector<int64_t> collapse(const std::vector<int64_t>& path) {
  std::vector<int64_t> out;
  int64_t prev = -1;
  for (int64_t k : path) {
    if (k != prev && k != 0) out.push_back(k);
    prev = k;
  }
  return out;
}

// −ln Σ over all C^T paths of sequence b's first T frames that collapse to `target`.
double brute_force_nll(const Tensor& log_probs, int64_t b, int64_t T, const std::vector<int64_t>& target) {
  const int64_t C = log_probs.size(2);
  double total = 0;
  std::vector<int64_t> path(size_t(T), 0);
  int64_t n = 1;
  for (int64_t t = 0; t < T; ++t) n *= C;
  for (int64_t code = 0; code < n; ++code) {
    int64_t c = code;
    double lp = 0;
    for (int64_t t = 0; t < T; ++t) {
      path[size_t(t)] = c % C;
      c /= C;
      lp += log_probs.at({b, t, path[size_t(t)]});
    }
    if (collapse(path) == target) total += std::exp(lp);
  }
  return -std::log(total);
}

Tensor random_log_probs(int64_t B, int64_t T, int64_t C, uint64_t seed) {
  Generator gen(seed);
  return ops::log_softmax(Tensor::normal({B, T, C}, gen, 0, 1.5, DType::f64), -1);
}

TEST(NnCtc, EqualsBruteForceEnumeration) {
  // C = 3 (blank + labels 1, 2), T ≤ 5; batch of 6 with different lengths; padding is garbage.
  const int64_t B = 6, T = 5, C = 3, S = 3;
  std::vector<std::vector<int64_t>> targets = {{1, 2}, {1, 1}, {}, {2, 1, 2}, {2}, {1, 1, 2}};
  std::vector<int64_t> in_len = {5, 4, 3, 5, 1, 5};
  std::vector<int64_t> tg(B * S, 2), tl;
  for (int64_t b = 0; b < B; ++b) {
    for (size_t i = 0; i < targets[size_t(b)].size(); ++i) tg[size_t(b * S) + i] = targets[size_t(b)][i];
    tl.push_back(int64_t(targets[size_t(b)].size()));
  }
  Tensor lp = random_log_probs(B, T, C, 3);
  Var nll = ctc_nll(Var(lp), Tensor::from_vector(tg, {B, S}), Tensor::from_vector(in_len, {B}),
                    Tensor::from_vector(tl, {B}));
  ASSERT_EQ(nll.shape(), (Shape{B}));
  for (int64_t b = 0; b < B; ++b) {
    const double want = brute_force_nll(lp, b, in_len[size_t(b)], targets[size_t(b)]);
    EXPECT_NEAR(nll.data().at({b}), want, 1e-10 * std::abs(want) + 1e-12) << "sequence " << b;
  }
  // Reductions: sum, and PyTorch's mean (NLL_b / max(S_b, 1), averaged).
  std::vector<double> v = nll.data().to_vector<double>();
  double sum = 0, mean = 0;
  for (int64_t b = 0; b < B; ++b) {
    sum += v[size_t(b)];
    mean += v[size_t(b)] / double(std::max<int64_t>(tl[size_t(b)], 1)) / double(B);
  }
  auto args = [&](Reduction r) {
    return ctc_loss(Var(lp), Tensor::from_vector(tg, {B, S}), Tensor::from_vector(in_len, {B}),
                    Tensor::from_vector(tl, {B}), r)
        .item();
  };
  EXPECT_NEAR(args(Reduction::sum), sum, 1e-10 * sum);
  EXPECT_NEAR(args(Reduction::mean), mean, 1e-10 * mean);
}

TEST(NnCtc, FramesPastTheLengthChangeNothing) {
  Tensor lp = random_log_probs(1, 4, 3, 5);
  Tensor tg = Tensor::from_vector(std::vector<int64_t>{1, 2}, {1, 2});
  Tensor tl = Tensor::from_vector(std::vector<int64_t>{2}, {1});
  Tensor len = Tensor::from_vector(std::vector<int64_t>{4}, {1});
  Var a(lp, true);
  Var la = ctc_nll(a, tg, len, tl);
  la.backward(Tensor::ones({1}, DType::f64));
  Tensor garbage = random_log_probs(1, 3, 3, 9);
  Var b(ops::cat({lp, garbage}, 1), true);
  Var lb = ctc_nll(b, tg, len, tl);
  lb.backward(Tensor::ones({1}, DType::f64));
  EXPECT_DOUBLE_EQ(la.item(), lb.item());
  EXPECT_LT(ops::max_abs_diff(a.grad(), b.grad().narrow(1, 0, 4)), 1e-15);
  EXPECT_EQ(ops::max_abs_diff(b.grad().narrow(1, 4, 3), Tensor::zeros({1, 3, 3}, DType::f64)), 0.0);
}

TEST(NnCtc, GradcheckThroughLogSoftmax) {
  const int64_t B = 3, T = 5, C = 4, S = 3;
  Generator gen(11);
  Tensor logits = Tensor::normal({B, T, C}, gen, 0, 1, DType::f64);
  Tensor tg = Tensor::from_vector(std::vector<int64_t>{1, 1, 3, 2, 0, 0, 3, 2, 1}, {B, S});
  Tensor tl = Tensor::from_vector(std::vector<int64_t>{3, 1, 2}, {B});
  Tensor len = Tensor::from_vector(std::vector<int64_t>{5, 3, 4}, {B});
  for (Reduction r : {Reduction::none, Reduction::mean}) {
    GradcheckResult res = gradcheck(
        [&](const std::vector<Var>& in) { return ctc_loss(log_softmax(in[0], -1), tg, len, tl, r); }, {logits});
    EXPECT_TRUE(res.ok) << res.message;
  }
  // Directly on unnormalised scores: p is multilinear in exp(z), the gradient formula still holds.
  GradcheckResult res =
      gradcheck([&](const std::vector<Var>& in) { return ctc_nll(in[0], tg, len, tl); }, {logits});
  EXPECT_TRUE(res.ok) << res.message;
}

TEST(NnCtc, Float32MatchesFloat64) {
  Tensor lp = random_log_probs(2, 6, 5, 21);
  Tensor tg = Tensor::from_vector(std::vector<int64_t>{1, 4, 4, 2, 3, 0}, {2, 3});
  Tensor tl = Tensor::from_vector(std::vector<int64_t>{3, 2}, {2});
  Tensor len = Tensor::from_vector(std::vector<int64_t>{6, 5}, {2});
  Var a = ctc_nll(Var(lp), tg, len, tl), b = ctc_nll(Var(lp.to(DType::f32)), tg, len, tl);
  EXPECT_EQ(b.dtype(), DType::f32);
  EXPECT_LT(ops::max_abs_diff(a.data(), b.data().to(DType::f64)), 1e-5);
}

TEST(NnCtc, Errors) {
  Tensor lp = random_log_probs(2, 3, 3, 1);
  Tensor len = Tensor::from_vector(std::vector<int64_t>{3, 3}, {2});
  // Sequence 1: "1 1 1" needs 3 + 2 repeats = 5 frames, only 3.
  Tensor tg = Tensor::from_vector(std::vector<int64_t>{1, 2, 0, 1, 1, 1}, {2, 3});
  Tensor tl = Tensor::from_vector(std::vector<int64_t>{2, 3}, {2});
  std::string msg = error_of([&] { ctc_nll(Var(lp), tg, len, tl); });
  EXPECT_HAS(msg, "sequence 1 cannot be aligned");
  EXPECT_HAS(msg, "needs at least 5");
  // Zero-length input.
  msg = error_of([&] {
    ctc_nll(Var(lp), tg, Tensor::from_vector(std::vector<int64_t>{0, 3}, {2}),
            Tensor::from_vector(std::vector<int64_t>{0, 1}, {2}));
  });
  EXPECT_HAS(msg, "sequence 0 has input length 0");
  // A blank or an out-of-range label in the target.
  msg = error_of([&] {
    ctc_nll(Var(lp), Tensor::from_vector(std::vector<int64_t>{1, 0, 0, 3, 0, 0}, {2, 3}), len,
            Tensor::from_vector(std::vector<int64_t>{2, 1}, {2}));
  });
  EXPECT_HAS(msg, "sequence 0 target 1 is 0");
  msg = error_of([&] {
    ctc_nll(Var(lp), Tensor::from_vector(std::vector<int64_t>{1, 0, 0, 3, 0, 0}, {2, 3}), len,
            Tensor::from_vector(std::vector<int64_t>{1, 1}, {2}));
  });
  EXPECT_HAS(msg, "sequence 1 target 0 is 3");
  msg = error_of([&] { ctc_nll(Var(lp), tg, len, Tensor::from_vector(std::vector<int64_t>{2, 4}, {2})); });
  EXPECT_HAS(msg, "target length 4");
}

TEST(NnCtc, GreedyDecode) {
  // Frames' argmax: b0 = 1 1 0 1 2 2 0 → [1, 1, 2]; b1 (length 4 of 7) = 0 2 2 0 | 1 1 1 → [2].
  const std::vector<std::vector<int64_t>> best = {{1, 1, 0, 1, 2, 2, 0}, {0, 2, 2, 0, 1, 1, 1}};
  std::vector<double> lp;
  for (const auto& row : best)
    for (int64_t k : row)
      for (int64_t c = 0; c < 3; ++c) lp.push_back(c == k ? -0.1 : -3.0);
  Tensor z = Tensor::from_vector(lp, {2, 7, 3});
  auto out = ctc_greedy_decode(z, Tensor::from_vector(std::vector<int64_t>{7, 4}, {2}));
  EXPECT_EQ(out[0], (std::vector<int64_t>{1, 1, 2}));
  EXPECT_EQ(out[1], (std::vector<int64_t>{2}));
  EXPECT_EQ(ctc_greedy_decode(z)[1], (std::vector<int64_t>{2, 1}));
}

TEST(NnCtc, EditDistance) {
  using V = std::vector<int64_t>;
  EXPECT_EQ(edit_distance(V{}, V{}), 0);
  EXPECT_EQ(edit_distance(V{1, 2, 3}, V{}), 3);
  EXPECT_EQ(edit_distance(V{}, V{4, 5}), 2);
  EXPECT_EQ(edit_distance(V{1, 2, 3}, V{1, 2, 3}), 0);
  EXPECT_EQ(edit_distance(V{1, 2, 3}, V{1, 3}), 1);        // deletion
  EXPECT_EQ(edit_distance(V{1, 3}, V{1, 2, 3}), 1);        // insertion
  EXPECT_EQ(edit_distance(V{1, 2, 3}, V{1, 4, 3}), 1);     // substitution
  EXPECT_EQ(edit_distance(V{1, 2, 3, 4}, V{2, 1, 4, 3}), 3);
  // kitten → sitting with k=1 i=2 t=3 e=4 n=5 s=6 g=7: 3.
  EXPECT_EQ(edit_distance(V{1, 2, 3, 3, 4, 5}, V{6, 2, 3, 3, 2, 5, 7}), 3);
}

}  // namespace
}  // namespace lintra::nn
