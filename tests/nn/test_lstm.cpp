// test_lstm.cpp — the LSTM layer (nn/lstm.h).
// Invariants: parameter names, shapes and the U(±1/√H) init; one step equals the hand-written
// PyTorch-order formula; a padded batch gives each sequence what it gets alone (outputs, and
// gradients w.r.t. its frames and the weights), with zeros past its length, and garbage frames beyond
// a length change nothing; the backward direction starts at each sequence's last valid frame; uni-
// and bidirectional multi-layer LSTMs pass float64 gradchecks on padded batches.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "nn/lstm.h"
#include "tests/nn/nn_test_util.h"

namespace lintra::nn {
namespace {

using lintra::testing::gradcheck_leaves;
using lintra::testing::random_var;

std::vector<Var> params_of(const LSTM& m) { return m.parameters(); }

TEST(NnLstm, ParametersAndInit) {
  Generator gen(1);
  LSTM m(5, 4, 2, true, gen);
  EXPECT_EQ(m.parameter("weight_ih_l0").shape(), (Shape{16, 5}));
  EXPECT_EQ(m.parameter("weight_hh_l0_reverse").shape(), (Shape{16, 4}));
  EXPECT_EQ(m.parameter("weight_ih_l1").shape(), (Shape{16, 8}));
  EXPECT_EQ(m.parameter("bias_hh_l1_reverse").shape(), (Shape{16}));
  EXPECT_EQ(m.parameters().size(), 16u);
  EXPECT_EQ(m.output_size(), 8);
  for (const Var& p : m.parameters()) {
    EXPECT_LE(ops::amax(ops::abs(p.data())).item(), 0.5 + 1e-7);  // 1/√4
  }
  EXPECT_HAS(m.describe(), "LSTM(input=5, hidden=4, layers=2, bidirectional)");
}

TEST(NnLstm, OneStepMatchesFormula) {
  Generator gen(2);
  LSTM m(3, 2, 1, false, gen);
  m.to(DType::f64);
  Var x = random_var({2, 1, 3}, gen, DType::f64, false);
  Tensor y = m.forward(x).data();
  const Tensor W = m.parameter("weight_ih_l0").data(), b1 = m.parameter("bias_ih_l0").data(),
               b2 = m.parameter("bias_hh_l0").data();
  auto sig = [](double v) { return 1 / (1 + std::exp(-v)); };
  for (int64_t b = 0; b < 2; ++b) {
    double pre[8];
    for (int64_t r = 0; r < 8; ++r) {
      pre[r] = b1.at({r}) + b2.at({r});  // h_0 = 0: W_hh contributes nothing
      for (int64_t k = 0; k < 3; ++k) pre[r] += W.at({r, k}) * x.data().at({b, 0, k});
    }
    for (int64_t j = 0; j < 2; ++j) {
      const double i = sig(pre[j]), g = std::tanh(pre[4 + j]), o = sig(pre[6 + j]);
      const double c = i * g;  // f · c_0 = 0
      EXPECT_NEAR(y.at({b, 0, j}), o * std::tanh(c), 1e-12);
    }
  }
  // Second step uses W_hh and f: check against the recurrence with the first step's (h, c).
  Var x2 = random_var({1, 2, 3}, gen, DType::f64, false);
  Tensor y2 = m.forward(x2).data();
  const Tensor U = m.parameter("weight_hh_l0").data();
  std::vector<double> h(2, 0), c(2, 0);
  for (int64_t t = 0; t < 2; ++t) {
    double pre[8];
    for (int64_t r = 0; r < 8; ++r) {
      pre[r] = b1.at({r}) + b2.at({r});
      for (int64_t k = 0; k < 3; ++k) pre[r] += W.at({r, k}) * x2.data().at({0, t, k});
      for (int64_t k = 0; k < 2; ++k) pre[r] += U.at({r, k}) * h[size_t(k)];
    }
    for (int64_t j = 0; j < 2; ++j) {
      c[size_t(j)] = sig(pre[2 + j]) * c[size_t(j)] + sig(pre[j]) * std::tanh(pre[4 + j]);
      h[size_t(j)] = sig(pre[6 + j]) * std::tanh(c[size_t(j)]);
    }
    for (int64_t j = 0; j < 2; ++j) EXPECT_NEAR(y2.at({0, t, j}), h[size_t(j)], 1e-12) << "t " << t;
  }
}

// Each sequence of a padded batch gets exactly what it gets alone, and padding frames never matter.
void check_padding_invariance(bool bidirectional) {
  Generator gen(3);
  LSTM m(3, 4, 2, bidirectional, gen);
  m.to(DType::f64);
  const int64_t T = 6;
  const std::vector<int64_t> lens = {6, 3, 1};
  Tensor x = Tensor::normal({3, T, 3}, gen, 0, 1, DType::f64);
  Tensor garbage = Tensor::normal({3, T, 3}, gen, 0, 5, DType::f64);
  // x2 = x at valid frames, garbage elsewhere.
  std::vector<uint8_t> valid;
  for (int64_t b = 0; b < 3; ++b)
    for (int64_t t = 0; t < T; ++t) valid.push_back(t < lens[size_t(b)]);
  Tensor vmask = Tensor::from_vector(valid, {3, T, 1});
  Tensor x2 = ops::where(vmask, x, garbage);
  Tensor len = Tensor::from_vector(lens, {3});
  Tensor upstream = Tensor::normal({3, T, m.output_size()}, gen, 0, 1, DType::f64);

  auto run = [&](const Tensor& input, const Tensor& lengths, const Tensor& up, Tensor* dx, std::vector<Tensor>* dw) {
    m.zero_grad();
    Var xv(input.clone(), true);
    Var y = m.forward(xv, lengths);
    y.backward(up);
    *dx = xv.grad();
    dw->clear();
    for (const Var& p : m.parameters()) dw->push_back(p.grad().clone());
    return y.data();
  };
  Tensor dx1, dx2;
  std::vector<Tensor> dw1, dw2;
  Tensor y1 = run(x, len, upstream, &dx1, &dw1);
  Tensor y2 = run(x2, len, upstream, &dx2, &dw2);
  EXPECT_LT(ops::max_abs_diff(y1, y2), 1e-14);
  EXPECT_LT(ops::max_abs_diff(dx1, dx2), 1e-14);
  for (size_t i = 0; i < dw1.size(); ++i) EXPECT_LT(ops::max_abs_diff(dw1[i], dw2[i]), 1e-13) << i;
  // Zero outputs and zero input gradients past each length.
  Tensor pad = ops::logical_not(vmask);
  EXPECT_EQ(ops::amax(ops::abs(ops::mul(y1, pad.to(DType::f64)))).item(), 0.0);
  EXPECT_EQ(ops::amax(ops::abs(ops::mul(dx1, pad.to(DType::f64)))).item(), 0.0);
  // Each sequence alone, trimmed to its length, gives the same outputs and input gradients.
  for (int64_t b = 0; b < 3; ++b) {
    const int64_t Tb = lens[size_t(b)];
    Tensor xb = x.narrow(0, b, 1).narrow(1, 0, Tb).contiguous();
    Tensor ub = upstream.narrow(0, b, 1).narrow(1, 0, Tb).contiguous();
    Tensor dxb;
    std::vector<Tensor> dwb;
    Tensor yb = run(xb, Tensor(), ub, &dxb, &dwb);
    EXPECT_LT(ops::max_abs_diff(yb, y1.narrow(0, b, 1).narrow(1, 0, Tb)), 1e-14) << "sequence " << b;
    EXPECT_LT(ops::max_abs_diff(dxb, dx1.narrow(0, b, 1).narrow(1, 0, Tb)), 1e-14) << "sequence " << b;
  }
}

TEST(NnLstm, PaddingChangesNothing) { check_padding_invariance(false); }
TEST(NnLstm, BidirectionalPaddingChangesNothing) { check_padding_invariance(true); }

TEST(NnLstm, ReverseIndex) {
  Tensor r = reverse_within_lengths_index(Tensor::from_vector(std::vector<int64_t>{4, 2, 0}, {3}), 4);
  EXPECT_EQ(r.to_vector<int64_t>(), (std::vector<int64_t>{3, 2, 1, 0, 1, 0, 2, 3, 0, 1, 2, 3}));
}

// The backward half at frame 0 has seen the whole valid sequence: the reverse output at the last valid
// frame depends only on that frame.
TEST(NnLstm, BackwardDirectionStartsAtLastValidFrame) {
  Generator gen(4);
  LSTM m(2, 3, 1, true, gen);
  m.to(DType::f64);
  Tensor x = Tensor::normal({1, 5, 2}, gen, 0, 1, DType::f64);
  Tensor len = Tensor::from_vector(std::vector<int64_t>{3}, {1});
  Tensor y = m.forward(Var(x), len).data();
  Tensor last = x.narrow(1, 2, 1).contiguous();
  Tensor y1 = m.forward(Var(last)).data();
  EXPECT_LT(ops::max_abs_diff(y.narrow(1, 2, 1).narrow(2, 3, 3), y1.narrow(2, 3, 3)), 1e-14);
}

void gradcheck_lstm(bool bidirectional) {
  Generator gen(5);
  LSTM m(2, 3, 2, bidirectional, gen);
  m.to(DType::f64);
  Var x = random_var({2, 4, 2}, gen);
  Tensor len = Tensor::from_vector(std::vector<int64_t>{4, 2}, {2});
  std::vector<Var> leaves = params_of(m);
  leaves.push_back(x);
  GradcheckResult r = gradcheck_leaves([&] { return sum(square(m.forward(x, len)), {2}); }, leaves);
  EXPECT_TRUE(r.ok) << r.message;
}

TEST(NnLstm, Gradcheck) { gradcheck_lstm(false); }
TEST(NnLstm, BidirectionalGradcheck) { gradcheck_lstm(true); }

TEST(NnLstm, Errors) {
  Generator gen(6);
  LSTM m(2, 3, 1, true, gen);
  Var x(Tensor::zeros({1, 3, 2}));
  EXPECT_HAS(lintra::testing::error_of([&] { m.forward(Var(Tensor::zeros({1, 3, 4}))); }), "LSTM: input must be");
  EXPECT_HAS(lintra::testing::error_of([&] { m.forward(x, Tensor::from_vector(std::vector<int64_t>{4}, {1})); }),
             "lengths must be in [0, 3]");
}

}  // namespace
}  // namespace lintra::nn
