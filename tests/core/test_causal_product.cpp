// test_causal_product.cpp — invariant: the causal product kernels (forward and the constant-memory
// backward, state sweeps) equal the masked quadratic form computed by plain float64 loops
// (core/reference/causal_product.cpp), for sequence lengths on both sides of the segment boundaries
// (N = 1, 7, S − 1, S, S + 1, 2S − 1, 2S + 1, 3S + 1, 4S + 2 with segments of S rows, each length S
// the kernel chooses from, cpu/causal_sweep.h), the same bits whatever the segment length, widths that fill whole register tiles of 1 or 2 vectors (read and written in
// place) and widths that do not (zero-padded copies), E ≠ M, every memory layout of every input, any
// thread count, and a sequence of many segments.
//
// Tolerances: every output element is a sum of products p of input elements, and the kernel only
// reorders that sum, so |got − want| ≤ n·u·Σ|p| with n the longest chain of additions (about N + E,
// ≤ 200 here; 1,300 in the long case) and u the unit roundoff. Σ|p| is the same oracle run on |inputs|. float32
// (u = 6e-8): n·u ≤ 6e-6, checked at rtol 1e-4 of Σ|p| (the brief's "relative error < 1e-4", made
// meaningful for signed inputs whose sums cancel); float64 (u = 1.1e-16): 1e-12.
//
// Every case runs once per SIMD target (tests/core/simd_targets.h): CoreCausalProduct.<Case>/AVX2, …
#include <gtest/gtest.h>

#include <optional>

#include "core/cpu/causal_sweep.h"
#include "core/kernels.h"
#include "core/ops.h"
#include "core/reference/reference.h"
#include "core/threading.h"
#include "tests/core/core_test_util.h"
#include "tests/core/simd_targets.h"

namespace lintra {
namespace {

using testing::Layout;
using testing::make_input;

double rtol_for(DType dt) { return dt == DType::f32 ? 1e-4 : 1e-12; }

// |actual − expected| ≤ rtol·scale elementwise, reporting the worst element.
::testing::AssertionResult close_scaled(const Tensor& actual, const Tensor& expected, const Tensor& scale,
                                        double rtol) {
  if (actual.shape() != expected.shape()) {
    return ::testing::AssertionFailure() << "shape " << shape_str(actual.shape()) << " vs expected "
                                         << shape_str(expected.shape());
  }
  const std::vector<double> a = actual.to_vector<double>(), e = expected.to_vector<double>(),
                            s = scale.to_vector<double>();
  double worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double err = std::abs(a[i] - e[i]) / (rtol * s[i] + 1e-300);
    if (!(err <= worst)) {
      worst = err;
      at = i;
    }
  }
  if (worst <= 1) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "element " << at << ": got " << fmt::format("{:.10g}", a[at])
                                       << ", expected " << fmt::format("{:.10g}", e[at]) << " (error " << worst
                                       << "× rtol " << rtol << " of Σ|terms| " << s[at] << ")";
}

Tensor run_forward(const Tensor& q, const Tensor& k, const Tensor& v) {
  Tensor out = Tensor::empty({q.size(0), q.size(1), q.size(2), v.size(3)}, q.dtype());
  kernels::on(out).causal_product_forward(q, k, v, out);
  return out;
}

reference::CausalProductGrads run_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& g) {
  reference::CausalProductGrads r{Tensor::empty(q.shape(), q.dtype()), Tensor::empty(k.shape(), k.dtype()),
                                  Tensor::empty(v.shape(), v.dtype())};
  kernels::on(r.gq).causal_product_backward(q, k, v, g, r.gq, r.gk, r.gv);
  return r;
}

// Checks forward and backward of one case against the oracle.
void expect_matches_reference(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& g,
                              const std::string& what) {
  SCOPED_TRACE(what);
  const double rtol = rtol_for(q.dtype());
  const Tensor aq = ops::abs(q), ak = ops::abs(k), av = ops::abs(v), ag = ops::abs(g);
  EXPECT_TRUE(close_scaled(run_forward(q, k, v), reference::causal_product(q, k, v),
                           reference::causal_product(aq, ak, av), rtol))
      << "forward";
  const reference::CausalProductGrads got = run_backward(q, k, v, g);
  const reference::CausalProductGrads want = reference::causal_product_backward(q, k, v, g);
  const reference::CausalProductGrads scale = reference::causal_product_backward(aq, ak, av, ag);
  EXPECT_TRUE(close_scaled(got.gq, want.gq, scale.gq, rtol)) << "gq";
  EXPECT_TRUE(close_scaled(got.gk, want.gk, scale.gk, rtol)) << "gk";
  EXPECT_TRUE(close_scaled(got.gv, want.gv, scale.gv, rtol)) << "gv";
}

struct Widths {
  int64_t B, H, E, M;
};
// Padded copies (5, 7), in-place rows (32, 64: tiles of 2 vectors wherever the lanes allow), mixed
// (33 and 17 padded; 16 and 48 in place, in tiles of 1 vector with 16 lanes), and E > M.
const std::vector<Widths> kWidths = {{2, 3, 5, 7}, {1, 2, 32, 64}, {2, 1, 33, 17}, {1, 1, 16, 48}, {1, 2, 64, 16}};
namespace causal = kernels::cpu::causal;

std::vector<int64_t> lengths_around(int64_t S) { return {1, 7, S - 1, S, S + 1, 2 * S - 1, 2 * S + 1, 3 * S + 1, 4 * S + 2}; }

// Forces the kernels' segment length for a scope (0: the kernels choose).
class ForcedSegment {
 public:
  explicit ForcedSegment(int64_t rows) { causal::force_segment_rows(rows); }
  ~ForcedSegment() { causal::force_segment_rows(0); }
  ForcedSegment(const ForcedSegment&) = delete;
  ForcedSegment& operator=(const ForcedSegment&) = delete;
};

class CoreCausalProduct : public testing::SimdTargetTest {};
LINTRA_ON_EVERY_SIMD_TARGET(CoreCausalProduct);

TEST_P(CoreCausalProduct, MatchesReferenceAcrossSegmentBoundaries) {
  Generator gen(71);
  for (int64_t S : causal::kSegmentChoices) {
    const ForcedSegment forced(S);
    for (DType dt : {DType::f32, DType::f64})
      for (const Widths& w : kWidths)
        for (int64_t N : lengths_around(S)) {
          Tensor q = Tensor::uniform({w.B, w.H, N, w.E}, gen, -1, 1, dt);
          Tensor k = Tensor::uniform({w.B, w.H, N, w.E}, gen, -1, 1, dt);
          Tensor v = Tensor::uniform({w.B, w.H, N, w.M}, gen, -1, 1, dt);
          Tensor g = Tensor::uniform({w.B, w.H, N, w.M}, gen, -1, 1, dt);
          expect_matches_reference(q, k, v, g, fmt::format("S={} {} B={} H={} N={} E={} M={}", S, dtype_name(dt), w.B,
                                                           w.H, N, w.E, w.M));
        }
  }
}

TEST_P(CoreCausalProduct, SegmentLengthChangesNoBit) {
  // The state passes between segments through scratch unrounded, and every o_t sums its tiles in the
  // same order: forward and backward are the same bits for every length the kernels choose from.
  Generator gen(78);
  for (const Widths& w : {Widths{2, 2, 32, 64}, Widths{1, 2, 33, 17}}) {
    const int64_t N = 101;
    Tensor q = Tensor::uniform({w.B, w.H, N, w.E}, gen, -1, 1), k = Tensor::uniform({w.B, w.H, N, w.E}, gen, -1, 1);
    Tensor v = Tensor::uniform({w.B, w.H, N, w.M}, gen, -1, 1), g = Tensor::uniform({w.B, w.H, N, w.M}, gen, -1, 1);
    std::optional<Tensor> out0;
    std::optional<reference::CausalProductGrads> grads0;
    for (int64_t S : causal::kSegmentChoices) {
      SCOPED_TRACE(fmt::format("S={} E={} M={}", S, w.E, w.M));
      const ForcedSegment forced(S);
      Tensor out = run_forward(q, k, v);
      reference::CausalProductGrads grads = run_backward(q, k, v, g);
      if (!out0) {
        out0 = out;
        grads0 = grads;
        continue;
      }
      EXPECT_TRUE(testing::equal_to(out, *out0));
      EXPECT_TRUE(testing::equal_to(grads.gq, grads0->gq));
      EXPECT_TRUE(testing::equal_to(grads.gk, grads0->gk));
      EXPECT_TRUE(testing::equal_to(grads.gv, grads0->gv));
    }
  }
}

TEST_P(CoreCausalProduct, PositiveFeaturesHaveSmallElementwiseRelativeError) {
  // φ(x) = elu(x) + 1 > 0: with positive q, k, v and g nothing cancels, so the plain elementwise
  // relative error (the fast-transformers test's criterion) must be small too.
  Generator gen(72);
  for (DType dt : {DType::f32, DType::f64}) {
    const int64_t B = 2, H = 2, N = 100, E = 24, M = 40;
    Tensor q = Tensor::uniform({B, H, N, E}, gen, 0, 1, dt), k = Tensor::uniform({B, H, N, E}, gen, 0, 1, dt);
    Tensor v = Tensor::uniform({B, H, N, M}, gen, 0, 1, dt), g = Tensor::uniform({B, H, N, M}, gen, 0, 1, dt);
    const Tensor want = reference::causal_product(q, k, v);
    EXPECT_TRUE(close_scaled(run_forward(q, k, v), want, want, rtol_for(dt))) << dtype_name(dt);
    const reference::CausalProductGrads got = run_backward(q, k, v, g), ref = reference::causal_product_backward(q, k, v, g);
    EXPECT_TRUE(close_scaled(got.gq, ref.gq, ref.gq, rtol_for(dt))) << dtype_name(dt);
    EXPECT_TRUE(close_scaled(got.gk, ref.gk, ref.gk, rtol_for(dt))) << dtype_name(dt);
    EXPECT_TRUE(close_scaled(got.gv, ref.gv, ref.gv, rtol_for(dt))) << dtype_name(dt);
  }
}

TEST_P(CoreCausalProduct, AnyInputLayout) {
  // permuted: no contiguous dim (copied per element); strided: last dim with step 2; expanded: B
  // broadcast with stride 0. Each input gets a different layout in turn.
  Generator gen(73);
  const std::vector<Layout> layouts = {Layout::contiguous, Layout::permuted, Layout::strided, Layout::expanded};
  for (DType dt : {DType::f32, DType::f64})
    for (const Widths& w : {Widths{2, 2, 5, 7}, Widths{2, 2, 32, 64}})
      for (int64_t N : {7, 65})
        for (size_t shift = 0; shift < layouts.size(); ++shift) {
          auto layout = [&](size_t i) { return layouts[(i + shift) % layouts.size()]; };
          Tensor q = make_input({w.B, w.H, N, w.E}, dt, layout(0), gen);
          Tensor k = make_input({w.B, w.H, N, w.E}, dt, layout(1), gen);
          Tensor v = make_input({w.B, w.H, N, w.M}, dt, layout(2), gen);
          Tensor g = make_input({w.B, w.H, N, w.M}, dt, layout(3), gen);
          expect_matches_reference(q, k, v, g,
                                   fmt::format("{} N={} E={} M={} layouts q {} k {} v {} g {}", dtype_name(dt), N,
                                               w.E, w.M, testing::layout_name(layout(0)),
                                               testing::layout_name(layout(1)), testing::layout_name(layout(2)),
                                               testing::layout_name(layout(3))));
        }
}

TEST_P(CoreCausalProduct, HeadSplitViewIsReadInPlace) {
  // The layout attention produces: (B, N, H, E) viewed as (B, H, N, E) — contiguous rows of E
  // with a row stride of H·E, the kernel's in-place path.
  Generator gen(74);
  for (DType dt : {DType::f32, DType::f64}) {
    const int64_t B = 2, H = 3, N = 70, E = 32, M = 16;
    Tensor q = Tensor::uniform({B, N, H, E}, gen, -1, 1, dt).permute({0, 2, 1, 3});
    Tensor k = Tensor::uniform({B, N, H, E}, gen, -1, 1, dt).permute({0, 2, 1, 3});
    Tensor v = Tensor::uniform({B, N, H, M}, gen, -1, 1, dt).permute({0, 2, 1, 3});
    Tensor g = Tensor::uniform({B, N, H, M}, gen, -1, 1, dt).permute({0, 2, 1, 3});
    ASSERT_FALSE(q.is_contiguous());
    expect_matches_reference(q, k, v, g, fmt::format("{} head-split view", dtype_name(dt)));
  }
}

TEST_P(CoreCausalProduct, ResultsDoNotDependOnTheThreadCount) {
  Generator gen(75);
  const int64_t B = 3, H = 3, N = 100, E = 32, M = 64;
  Tensor q = Tensor::uniform({B, H, N, E}, gen, -1, 1), k = Tensor::uniform({B, H, N, E}, gen, -1, 1);
  Tensor v = Tensor::uniform({B, H, N, M}, gen, -1, 1), g = Tensor::uniform({B, H, N, M}, gen, -1, 1);
  const int before = num_threads();
  set_num_threads(1);
  const Tensor out1 = run_forward(q, k, v);
  const reference::CausalProductGrads g1 = run_backward(q, k, v, g);
  set_num_threads(std::max(2, before));
  const Tensor out2 = run_forward(q, k, v);
  const reference::CausalProductGrads g2 = run_backward(q, k, v, g);
  set_num_threads(before);
  EXPECT_TRUE(testing::equal_to(out1, out2));
  EXPECT_TRUE(testing::equal_to(g1.gq, g2.gq));
  EXPECT_TRUE(testing::equal_to(g1.gk, g2.gk));
  EXPECT_TRUE(testing::equal_to(g1.gv, g2.gv));
}

TEST_P(CoreCausalProduct, LongSequencesCarryTheStateAcrossManySegments) {
  // 40 segments and a partial one: the state goes to scratch and back between every two; narrow E
  // and M keep the oracle cheap.
  Generator gen(77);
  const int64_t S = causal::kSegmentChoices[0];  // the longest: the fewest rows per boundary
  for (DType dt : {DType::f32, DType::f64}) {
    const ForcedSegment forced(S);
    const int64_t N = 40 * S + 3;
    Tensor q = Tensor::uniform({1, 1, N, 2}, gen, -1, 1, dt), k = Tensor::uniform({1, 1, N, 2}, gen, -1, 1, dt);
    Tensor v = Tensor::uniform({1, 1, N, 3}, gen, -1, 1, dt), g = Tensor::uniform({1, 1, N, 3}, gen, -1, 1, dt);
    expect_matches_reference(q, k, v, g, fmt::format("{} N={}", dtype_name(dt), N));
  }
}

TEST_P(CoreCausalProduct, EmptySizes) {
  Generator gen(76);
  // N = 0: nothing to do; E = 0: every score is an empty sum, so out = 0 and gv = 0; M = 0: gq = gk = 0.
  for (const Widths& w : {Widths{2, 2, 0, 5}, Widths{2, 2, 4, 0}, Widths{0, 2, 4, 5}})
    for (int64_t N : {0, 9}) {
      Tensor q = Tensor::uniform({w.B, w.H, N, w.E}, gen, -1, 1), k = Tensor::uniform({w.B, w.H, N, w.E}, gen, -1, 1);
      Tensor v = Tensor::uniform({w.B, w.H, N, w.M}, gen, -1, 1), g = Tensor::uniform({w.B, w.H, N, w.M}, gen, -1, 1);
      expect_matches_reference(q, k, v, g, fmt::format("B={} N={} E={} M={}", w.B, N, w.E, w.M));
    }
}

// Not per target: the choice of Note [segment length] as a function of bytes per row and L1d.
TEST(CoreCausalSegment, LongestSegmentWithinHalfOfL1) {
  // Float32, E = M = 32: a sweep's rows are 4 × 128 bytes and its state 4 KiB; the backward's
  // second pass reads and writes 6 distinct rows of 128 bytes and keeps two states.
  const int64_t kib = 1024;
  EXPECT_EQ(causal::segment_rows(512, 4 * kib, 32 * kib), 16);  // forward, 32 KiB L1d (12 KiB of 16)
  EXPECT_EQ(causal::segment_rows(768, 8 * kib, 32 * kib), 8);   // second pass, and the bench's forward (E = 32, M = 64)
  EXPECT_EQ(causal::segment_rows(512, 4 * kib, 48 * kib), 32);  // forward, 48 KiB L1d (20 KiB of 24)
  EXPECT_EQ(causal::segment_rows(768, 8 * kib, 48 * kib), 16);
  EXPECT_EQ(causal::segment_rows(256, 0, 16 * kib), 32);         // exactly half
  EXPECT_EQ(causal::segment_rows(257, 0, 16 * kib), 16);
  EXPECT_EQ(causal::segment_rows(1 << 20, 0, 32 * kib), 8);      // none fits: the shortest
  EXPECT_GT(causal::l1d_bytes(), 0);
}

TEST(CoreCausalSegment, ForcingAnotherLengthIsAnError) {
  EXPECT_THROW(causal::force_segment_rows(12), Error);
  EXPECT_EQ(causal::forced_segment_rows(), 0);
}

}  // namespace
}  // namespace lintra
