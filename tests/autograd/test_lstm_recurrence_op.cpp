// test_lstm_recurrence_op.cpp — invariant: lstm_recurrence (the fused recurrence of one LSTM direction,
// with its own backward through time) is the same function as the loop over time written from
// primitive Var ops — select, linear, chunk, sigmoid, tanh, mul/add and the length mask with where,
// per step, exactly as nn::LSTM::run was before the fused op — in value and in every gradient:
//   - float64 gradcheck (central differences, full Jacobian) w.r.t. xw, w_hh and b_hh on padded
//     batches (lengths T, 0 and in between), in both directions;
//   - fused vs composed in float32 and float64 for B ∈ {1, 3}, T ∈ {1, 7}, H ∈ {1, 5}, padded batches,
//     both directions (the composed reverse direction reverses each sequence within its length with
//     gathers, runs forward and reverses back), under a random weighting of the output;
//   - padded frames of xw change nothing, a non-contiguous xw works, and errors name the op and shapes.
//
// Tolerances (|fused − composed| ≤ atol + rtol·|composed|): both sides evaluate the same O(1)-valued
// recurrence with different rounding (BLAS vs the composed linear, fused vs separate elementwise
// passes, and in float32 the fused tanh within 2.6 ulp of libm's), over at most 7 steps, with gradient
// sums of at most T·B = 21 terms. float64: rtol 1e-10, atol 1e-12 (a few hundred ulp); float32:
// rtol 1e-4, atol 2e-5, as tests/autograd/test_fused_vs_composed.cpp. gradcheck: its defaults.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/error.h"
#include "tests/autograd/autograd_test_util.h"

namespace lintra {
namespace {

using testing::Tol;
using testing::tol_for;
using testing::close;
using testing::error_of;

using lintra::testing::gradcheck_ok;

// r[b, t] = T_b − 1 − t for t < T_b, t otherwise (int64 (B, T)): the within-length reversal.
Tensor reverse_index(const std::vector<int64_t>& lens, int64_t T) {
  std::vector<int64_t> idx;
  for (int64_t Tb : lens)
    for (int64_t t = 0; t < T; ++t) idx.push_back(t < Tb ? Tb - 1 - t : t);
  return Tensor::from_vector(idx, {int64_t(lens.size()), T});
}

// The composed recurrence, left to right.
Var composed_forward(const Var& xw, const Var& w_hh, const Var& b_hh, const Tensor& lengths) {
  const int64_t B = xw.size(0), T = xw.size(1), H = xw.size(2) / 4;
  const DType dt = xw.dtype();
  Var h(Tensor::zeros({B, H}, dt)), c(Tensor::zeros({B, H}, dt));
  const Var zero(Tensor::zeros({B, H}, dt));
  const Tensor len = lengths.reshape({B, 1});
  std::vector<Var> outs;
  for (int64_t t = 0; t < T; ++t) {
    Var gates = select(xw, 1, t) + linear(h, w_hh, b_hh);  // (B, 4H)
    std::vector<Var> g = chunk(gates, 4, 1);
    Var c_new = sigmoid(g[1]) * c + sigmoid(g[0]) * tanh(g[2]);
    Var h_new = sigmoid(g[3]) * tanh(c_new);
    const Tensor valid = ops::gt(len, double(t));  // (B, 1) u8: t < T_b
    c = where(valid, c_new, c);
    h = where(valid, h_new, h);
    outs.push_back(where(valid, h_new, zero));
  }
  return stack(outs, 1);  // (B, T, H)
}

Var composed(const Var& xw, const Var& w_hh, const Var& b_hh, const std::vector<int64_t>& lens, bool reverse) {
  const Tensor len = Tensor::from_vector(lens, {int64_t(lens.size())});
  if (!reverse) return composed_forward(xw, w_hh, b_hh, len);
  const int64_t B = xw.size(0), T = xw.size(1), H = xw.size(2) / 4;
  const Tensor r = reverse_index(lens, T).unsqueeze(2);
  Var xr = gather(xw, 1, r.expand({B, T, 4 * H}).contiguous());
  return gather(composed_forward(xr, w_hh, b_hh, len), 1, r.expand({B, T, H}).contiguous());
}

Var fused(const Var& xw, const Var& w_hh, const Var& b_hh, const std::vector<int64_t>& lens, bool reverse) {
  return lstm_recurrence(xw, w_hh, b_hh, Tensor::from_vector(lens, {int64_t(lens.size())}), reverse);
}


using Fn = std::function<Var(const Var&, const Var&, const Var&)>;

// Output and the gradients w.r.t. (xw, w_hh, b_hh) of sum(w ⊙ f(xw, w_hh, b_hh)) on fresh leaves.
struct Outcome {
  Tensor out;
  std::vector<Tensor> grads;
};
Outcome run(const Fn& f, const std::vector<Tensor>& inputs, const Tensor& w) {
  std::vector<Var> vs;
  for (const Tensor& t : inputs) vs.push_back(Var(t, true));
  Var y = f(vs[0], vs[1], vs[2]);
  sum(mul(y, Var(w))).backward();
  Outcome r{y.data(), {}};
  for (const Var& v : vs) r.grads.push_back(v.grad());
  return r;
}

struct Inputs {
  Tensor xw, w_hh, b_hh;
};
Inputs random_inputs(int64_t B, int64_t T, int64_t H, Generator& gen, DType dt) {
  // Pre-activations of order 1–3: the gates are neither linear nor saturated.
  return {Tensor::uniform({B, T, 4 * H}, gen, -2, 2, dt), Tensor::uniform({4 * H, H}, gen, -1, 1, dt),
          Tensor::uniform({4 * H}, gen, -1, 1, dt)};
}

TEST(AutogradLstmRecurrence, GradcheckFloat64) {
  Generator gen(171);
  struct Case {
    int64_t T, H;
    std::vector<int64_t> lens;
  };
  for (const Case& c : {Case{4, 2, {4, 0, 2}}, Case{3, 3, {3, 3}}, Case{1, 1, {1}}})
    for (bool reverse : {false, true}) {
      Inputs in = random_inputs(int64_t(c.lens.size()), c.T, c.H, gen, DType::f64);
      EXPECT_TRUE(gradcheck_ok(
          [&](const std::vector<Var>& v) { return fused(v[0], v[1], v[2], c.lens, reverse); },
          {in.xw, in.w_hh, in.b_hh}))
          << "T " << c.T << " H " << c.H << " reverse " << reverse;
    }
}

TEST(AutogradLstmRecurrence, FusedEqualsComposed) {
  Generator gen(172);
  for (DType dt : {DType::f32, DType::f64})
    for (int64_t B : {1, 3})
      for (int64_t T : {1, 7})
        for (int64_t H : {1, 5})
          for (bool reverse : {false, true}) {
            // B = 1: the full length, or 0 at T = 1; B = 3: full, empty and part.
            const std::vector<int64_t> lens =
                B == 1 ? std::vector<int64_t>{T == 1 && !reverse ? 0 : T} : std::vector<int64_t>{T, 0, (T + 1) / 2};
            Inputs in = random_inputs(B, T, H, gen, dt);
            const Tensor w = Tensor::uniform({B, T, H}, gen, -1, 1, dt);
            const std::string what = fmt::format("{} B {} T {} H {} reverse {}", dt, B, T, H, reverse);
            const Fn f = [&](const Var& x, const Var& u, const Var& b) { return fused(x, u, b, lens, reverse); };
            const Fn g = [&](const Var& x, const Var& u, const Var& b) { return composed(x, u, b, lens, reverse); };
            Outcome a = run(f, {in.xw, in.w_hh, in.b_hh}, w), b = run(g, {in.xw, in.w_hh, in.b_hh}, w);
            const Tol tol = tol_for(dt);
            EXPECT_TRUE(close(a.out, b.out, tol)) << what << ": values";
            for (size_t i = 0; i < 3; ++i) {
              ASSERT_TRUE(a.grads[i].defined() && b.grads[i].defined()) << what << ": input " << i;
              EXPECT_TRUE(close(a.grads[i], b.grads[i], tol)) << what << ": gradient of input " << i;
            }
          }
}

// Frames past a sequence's length are read by neither direction: garbage there changes no output and
// no gradient, and their own gradient and output are exactly zero.
TEST(AutogradLstmRecurrence, PaddedFramesChangeNothing) {
  Generator gen(173);
  const int64_t B = 3, T = 5, H = 3;
  const std::vector<int64_t> lens = {5, 2, 0};
  std::vector<uint8_t> valid;
  for (int64_t Tb : lens)
    for (int64_t t = 0; t < T; ++t) valid.push_back(t < Tb);
  const Tensor vmask = Tensor::from_vector(valid, {B, T, 1});
  for (bool reverse : {false, true}) {
    Inputs in = random_inputs(B, T, H, gen, DType::f64);
    const Tensor garbage = ops::where(vmask, in.xw, Tensor::normal({B, T, 4 * H}, gen, 0, 10, DType::f64));
    const Tensor w = Tensor::uniform({B, T, H}, gen, -1, 1, DType::f64);
    const Fn f = [&](const Var& x, const Var& u, const Var& b) { return fused(x, u, b, lens, reverse); };
    Outcome a = run(f, {in.xw, in.w_hh, in.b_hh}, w), b = run(f, {garbage, in.w_hh, in.b_hh}, w);
    EXPECT_EQ(ops::max_abs_diff(a.out, b.out), 0.0);
    for (size_t i = 0; i < 3; ++i) EXPECT_EQ(ops::max_abs_diff(a.grads[i], b.grads[i]), 0.0) << i;
    const Tensor pad = ops::logical_not(vmask).to(DType::f64);
    EXPECT_EQ(ops::amax(ops::abs(ops::mul(a.out, pad))).item(), 0.0);
    EXPECT_EQ(ops::amax(ops::abs(ops::mul(a.grads[0], pad))).item(), 0.0);
  }
}

TEST(AutogradLstmRecurrence, NonContiguousInputAndDefaultLengths) {
  Generator gen(174);
  const int64_t B = 2, T = 4, H = 3;
  Inputs in = random_inputs(B, T, H, gen, DType::f64);
  const Tensor xw_t = in.xw.transpose(0, 1).contiguous().transpose(0, 1);  // (B, T, 4H) with strides of (T, B, 4H)
  ASSERT_FALSE(xw_t.is_contiguous());
  const Tensor w = Tensor::uniform({B, T, H}, gen, -1, 1, DType::f64);
  Outcome a = run([&](const Var& x, const Var& u, const Var& b) { return lstm_recurrence(x, u, b, Tensor()); },
              {xw_t, in.w_hh, in.b_hh}, w);
  Outcome b = run([&](const Var& x, const Var& u, const Var& bb) { return composed(x, u, bb, {T, T}, false); },
              {in.xw, in.w_hh, in.b_hh}, w);
  EXPECT_TRUE(close(a.out, b.out, tol_for(DType::f64)));
  for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(close(a.grads[i], b.grads[i], tol_for(DType::f64))) << i;
}


TEST(AutogradLstmRecurrence, Errors) {
  const Var xw(Tensor::zeros({2, 3, 8})), w(Tensor::zeros({8, 2})), b(Tensor::zeros({8}));
  const Tensor len = Tensor::from_vector(std::vector<int64_t>{3, 1}, {2});
  auto has = [](const std::string& msg, const std::string& part) {
    return msg.find(part) != std::string::npos && msg.find("lstm_recurrence") != std::string::npos;
  };
  EXPECT_TRUE(has(error_of([&] { lstm_recurrence(Var(Tensor::zeros({2, 8})), w, b, len); }), "(B, T, 4H)"));
  EXPECT_TRUE(has(error_of([&] { lstm_recurrence(xw, Var(Tensor::zeros({8, 3})), b, len); }), "w_hh must be (4H, H)"));
  EXPECT_TRUE(has(error_of([&] { lstm_recurrence(xw, w, Var(Tensor::zeros({4})), len); }), "b_hh must be (4H)"));
  EXPECT_TRUE(has(error_of([&] { lstm_recurrence(xw, w, b, Tensor::from_vector(std::vector<int64_t>{4, 1}, {2})); }),
                  "lengths must be in [0, 3]"));
  EXPECT_TRUE(has(error_of([&] { lstm_recurrence(xw, w, b, Tensor::zeros({2})); }), "lengths must be int64"));
  EXPECT_TRUE(has(error_of([&] { lstm_recurrence(xw, Var(Tensor::zeros({8, 2}, DType::f64)), b, len); }),
                  "one floating dtype"));
}

}  // namespace
}  // namespace lintra
