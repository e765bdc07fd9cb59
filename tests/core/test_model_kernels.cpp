// test_model_kernels.cpp — the models' fused kernels against their references (core/reference/):
// masked_softmax_forward (softmax among allowed keys; 0 on masked keys and empty rows), lsh_plan (reformer's
// round plan: a counting sort against std::stable_sort, windows and masks from the definition),
// sample_mol (the mixture-of-logistics sampler) and ctc_loss (forward–backward against the sum over every
// path), each with inputs in several layouts and both float dtypes; bad targets come back as status; the
// float32 masked softmax on every SIMD target; and
// the LSTM recurrence's float32 cell (Highway, dispatched) on every SIMD target against the float64 scalar
// path on the same inputs.
#include <gtest/gtest.h>

#include <cmath>

#include "core/ops.h"
#include "core/reference/reference.h"
#include "core/rng.h"
#include "tests/core/core_test_util.h"
#include "tests/core/simd_targets.h"

namespace lintra {
namespace {

using testing::make_input;
using testing::Layout;

TEST(CoreModelKernels, MaskedSoftmaxMatchesReference) {
  Generator gen(1);
  for (DType dt : {DType::f32, DType::f64}) {
    for (Layout layout : testing::kAllLayouts) {
      const Tensor x = make_input({2, 3, 4, 7}, dt, layout, gen, -4, 4);
      Tensor allowed = ops::gt(Tensor::uniform({2, 1, 4, 7}, gen), 0.4);
      allowed.select(0, 1).select(1, 2).zero_();  // a row with nothing allowed
      const Tensor y = ops::masked_softmax(x, allowed);
      const double tol = dt == DType::f32 ? 1e-6 : 1e-14;
      EXPECT_LE(ops::max_abs_diff(y.to(DType::f64), reference::masked_softmax(x, allowed)), tol)
          << dtype_name(dt) << " " << testing::layout_name(layout);
      EXPECT_EQ(ops::max_abs_diff(y.select(0, 1).select(1, 2), Tensor::zeros({3, 7}, dt)), 0.0);
    }
  }
  // All allowed: the plain softmax.
  const Tensor x = Tensor::uniform({3, 5}, gen, -1, 1);
  EXPECT_LE(ops::max_abs_diff(ops::masked_softmax(x, Tensor::ones({5}, kBool)), ops::softmax(x, -1)), 1e-7);
}

TEST(CoreModelKernels, LshPlanMatchesReference) {
  Generator gen(2);
  for (int64_t N : {1, 5, 8, 13}) {
    for (int64_t C : {1, 2, 4, 16}) {
      if (C > N) continue;
      for (bool causal : {false, true}) {
        const Tensor buckets = ops::randint({2, 3, N}, 0, 5, gen);
        const Tensor lengths = Tensor::from_vector(std::vector<int64_t>{N, std::max<int64_t>(N / 2, 0)}, {2});
        const ops::LshPlan p = ops::lsh_plan(buckets, lengths, C, causal, true, -1e9, DType::f64);
        const reference::LshPlan r = reference::lsh_plan(buckets, lengths, C, causal, true, -1e9);
        const std::string at = fmt::format("N={} C={} causal={}", N, C, causal);
        EXPECT_EQ(p.query_rows.to_vector<int64_t>(), r.query_rows.to_vector<int64_t>()) << at;
        EXPECT_EQ(p.window_rows.to_vector<int64_t>(), r.window_rows.to_vector<int64_t>()) << at;
        EXPECT_EQ(p.scatter.to_vector<int64_t>(), r.scatter.to_vector<int64_t>()) << at;
        EXPECT_EQ(p.additive.to_vector<double>(), r.additive.to_vector<double>()) << at;
        EXPECT_EQ(p.row_ok.to_vector<double>(), r.row_ok.to_vector<double>()) << at;
      }
    }
  }
}

TEST(CoreModelKernels, SampleMolMatchesReference) {
  Generator gen(3);
  for (DType dt : {DType::f32, DType::f64}) {
    const int64_t R = 500, K = 5;
    Tensor params = Tensor::uniform({R, 3 * K}, gen, -3, 3, dt);
    const Tensor u = Tensor::uniform({R, K + 1}, gen, 0, 1, DType::f64);
    const ops::MixtureSample s = ops::sample_mol(params, u, 256);
    EXPECT_EQ(s.bad_row, -1);
    EXPECT_EQ(s.values.to_vector<int64_t>(), reference::sample_mol(params, u, 256).to_vector<int64_t>())
        << dtype_name(dt);
    params.select(0, 7).select(0, 2 * K + 1).fill_(NAN);
    const ops::MixtureSample bad = ops::sample_mol(params, u, 256);
    EXPECT_EQ(bad.bad_row, 7);
    EXPECT_EQ(bad.bad_component, 1);
  }
}

TEST(CoreModelKernels, CtcLossMatchesEveryPathSum) {
  Generator gen(4);
  for (DType dt : {DType::f64, DType::f32}) {
    const int64_t B = 3, T = 6, C = 3;
    const Tensor lp = ops::log_softmax(Tensor::uniform({B, T, C}, gen, -2, 2, dt), -1);
    const Tensor targets = Tensor::from_vector(std::vector<int64_t>{1, 2, 1, 2, 2, 0, 1, 0, 0}, {B, 3});
    const Tensor in_len = Tensor::from_vector(std::vector<int64_t>{6, 5, 3}, {B});
    const Tensor tg_len = Tensor::from_vector(std::vector<int64_t>{3, 2, 1}, {B});
    const ops::CtcLoss r = ops::ctc_loss(lp, targets, in_len, tg_len);
    const reference::CtcResult ref = reference::ctc_loss(lp, targets, in_len, tg_len);
    const double tol = dt == DType::f64 ? 1e-12 : 1e-5;
    EXPECT_EQ(r.status.to_vector<int64_t>(), std::vector<int64_t>(size_t(3 * B), 0));
    EXPECT_LE(ops::max_abs_diff(r.nll.to(DType::f64), ref.nll), tol) << dtype_name(dt);
    EXPECT_LE(ops::max_abs_diff(r.grad.to(DType::f64), ref.grad), tol) << dtype_name(dt);
    // A permuted (non-contiguous) input gives the same.
    const Tensor lpp = lp.transpose(0, 1).contiguous().transpose(0, 1);
    EXPECT_EQ(ops::max_abs_diff(ops::ctc_loss(lpp, targets, in_len, tg_len).grad, r.grad), 0.0);
  }
}

TEST(CoreModelKernels, CtcBadTargetsComeBackAsStatus) {
  const Tensor lp = ops::log_softmax(Tensor::zeros({3, 4, 3}, DType::f64), -1);
  const Tensor targets = Tensor::from_vector(std::vector<int64_t>{1, 3, 2, 2, 2, 2, 1, 2, 0}, {3, 3});
  const Tensor in_len = Tensor::from_vector(std::vector<int64_t>{4, 4, 2}, {3});
  const Tensor tg_len = Tensor::from_vector(std::vector<int64_t>{2, 3, 2}, {3});
  const ops::CtcLoss r = ops::ctc_loss(lp, targets, in_len, tg_len);
  // sequence 0: label 3 ≥ C at target 1; sequence 1: 2 2 2 needs 5 frames (2 repeats); sequence 2 is fine.
  EXPECT_EQ(r.status.to_vector<int64_t>(), (std::vector<int64_t>{1, 1, 3, 2, 2, 0, 0, 0, 0}));
}

// The float32 rows with a contiguous mask row run on Highway (cpu/masked_softmax.cpp): on every target,
// rows of 1 … 784 keys (partial vectors), a row with nothing allowed, one whose allowed logits are all
// −inf (0/0: NaN, as the scalar path), and a transposed mask (strided rows: the scalar path), against the
// float64 reference.
class CoreMaskedSoftmaxSimd : public testing::SimdTargetTest {};

TEST_P(CoreMaskedSoftmaxSimd, MatchesReferenceOnEveryTarget) {
  Generator gen(7);
  for (const int64_t S : {int64_t(1), int64_t(7), int64_t(8), int64_t(19), int64_t(784)}) {
    const Tensor x = Tensor::uniform({3, 5, S}, gen, -6, 6);
    Tensor allowed = ops::gt(Tensor::uniform({3, 1, S}, gen), 0.3);
    allowed.select(0, 2).zero_();
    const Tensor y = ops::masked_softmax(x, allowed);
    EXPECT_LE(ops::max_abs_diff(y.to(DType::f64), reference::masked_softmax(x, allowed)), 1e-6) << "S " << S;
    EXPECT_EQ(ops::max_abs_diff(y.select(0, 2), Tensor::zeros({5, S})), 0.0) << "S " << S;
    const Tensor square = Tensor::uniform({S, S}, gen, -3, 3);
    const Tensor mask_t = ops::gt(Tensor::uniform({S, S}, gen), 0.5).transpose(0, 1);  // rows strided
    EXPECT_LE(ops::max_abs_diff(ops::masked_softmax(square, mask_t).to(DType::f64),
                                reference::masked_softmax(square, mask_t)),
              1e-6)
        << "S " << S << " transposed mask";
  }
  Tensor minus_inf = Tensor::full({2, 9}, -INFINITY);
  const Tensor y = ops::masked_softmax(minus_inf, Tensor::ones({9}, kBool));
  EXPECT_TRUE(std::isnan(y.at({1, 4})));
}
LINTRA_ON_EVERY_SIMD_TARGET(CoreMaskedSoftmaxSimd);

// The float32 LSTM kernels (their cell on the forced SIMD target) against the float64 ones (scalar
// loops, libm) on the same values: H = 13 leaves partial vectors on every target, H = 16 none; one
// sequence shorter than T, one empty; both directions. Tolerance 2e-5 relative to max(1, |value|):
// float32 rounding over T = 6 steps of the recurrence (the gradients sum over them).
class CoreLstmSimd : public testing::SimdTargetTest {};

TEST_P(CoreLstmSimd, FloatCellMatchesTheFloat64Path) {
  Generator gen(31);
  for (const int64_t H : {int64_t(13), int64_t(16)})
    for (const bool reverse : {false, true}) {
      const int64_t B = 3, T = 6, G = 4 * H;
      const Tensor xw = Tensor::uniform({B, T, G}, gen, -2, 2, DType::f64);
      const Tensor w = Tensor::uniform({G, H}, gen, -0.5, 0.5, DType::f64);
      const Tensor bh = Tensor::uniform({G}, gen, -0.5, 0.5, DType::f64);
      const Tensor gh = Tensor::uniform({B, T, H}, gen, -1, 1, DType::f64);
      const Tensor len = Tensor::from_vector(std::vector<int64_t>{6, 4, 0}, {3});
      auto run = [&](DType dt) {
        const auto& k = kernels::on(Device::cpu);
        Tensor h = Tensor::empty({B, T, H}, dt), acts = Tensor::empty({T, B, G}, dt);
        Tensor hs = Tensor::empty({T + 1, B, H}, dt), cs = Tensor::empty({T + 1, B, H}, dt);
        k.lstm_forward(xw.to(dt), w.to(dt), bh.to(dt), len, reverse, h, acts, hs, cs);
        Tensor dxw = Tensor::empty({B, T, G}, dt), dw = Tensor::empty({G, H}, dt), db = Tensor::empty({G}, dt);
        k.lstm_backward(gh.to(dt), w.to(dt), len, reverse, acts, hs, cs, dxw, dw, db);
        return std::vector<Tensor>{h, acts, hs, cs, dxw, dw, db};
      };
      const std::vector<Tensor> f = run(DType::f32), d = run(DType::f64);
      const char* names[] = {"h", "acts", "hs", "cs", "dxw", "dw_hh", "db_hh"};
      for (size_t i = 0; i < f.size(); ++i) {
        const Tensor diff = ops::abs(ops::sub(f[i].to(DType::f64), d[i]));
        const Tensor scale = ops::clamp(ops::abs(d[i]), 1.0, INFINITY);
        EXPECT_LE(ops::amax(ops::div(diff, scale)).item(), 2e-5)
            << names[i] << " H " << H << (reverse ? " reverse" : "");
      }
    }
}
LINTRA_ON_EVERY_SIMD_TARGET(CoreLstmSimd);

}  // namespace
}  // namespace lintra
