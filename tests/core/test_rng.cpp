// test_rng.cpp — invariant: lintra's random numbers are a pure function of (seed, stream, offset):
// Philox-4x32-10 matches the published known-answer vectors; the same state gives the same numbers
// (scalar draws, uniform/normal fills, randint, randperm, bernoulli) whatever the OpenMP thread count;
// different seeds or streams give different numbers; saving and restoring the state replays the
// sequence; the fills consume the documented number of counter blocks; and the distributions have
// the right range and moments.
//
// Statistical checks use n = 2^16 draws and a 5σ rule: a sample mean must lie within 5·σ/√n of the
// true mean, and a sample standard deviation within 5·σ/√(2n) of σ (its large-n standard error for
// normal data). A correct generator fails such a check with probability < 1e-6; the seeds are fixed,
// so the outcome is deterministic anyway.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/ops.h"
#include "core/philox.h"
#include "core/rng.h"
#include "core/threading.h"
#include "tests/core/core_test_util.h"
#include "tests/core/simd_targets.h"

namespace lintra {
namespace {

using testing::equal_to;
using testing::error_of;

constexpr int64_t kN = 1 << 16;

struct Moments {
  double mean, std, min, max;
};
Moments moments(const Tensor& t) {
  std::vector<double> v = t.to_vector<double>();
  double m = std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return {m, std::sqrt(s / double(v.size())), *std::min_element(v.begin(), v.end()),
          *std::max_element(v.begin(), v.end())};
}

TEST(CoreRng, PhiloxMatchesKnownAnswerVectors) {
  // Random123's kat_vectors for philox4x32 10: counter words (c0, c1, c2, c3), key (k0, k1).
  // lintra's counter is (lo = c0 | c1 << 32, hi = c2 | c3 << 32), the key k0 | k1 << 32.
  using A = std::array<uint32_t, 4>;
  EXPECT_EQ(philox4x32(0, 0, 0), (A{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox4x32(~0ull, ~0ull, ~0ull), (A{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(philox4x32(0x85a308d3243f6a88ull, 0x0370734413198a2eull, 0x299f31d0a4093822ull),
            (A{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(CoreRng, SameSeedSameNumbers) {
  Generator a(1234), b(1234);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(a.next_u64(), b.next_u64());
  EXPECT_TRUE(equal_to(Tensor::uniform({3, 5, 7}, a), Tensor::uniform({3, 5, 7}, b)));
  EXPECT_TRUE(equal_to(Tensor::normal({17}, a, 0, 1, DType::f64), Tensor::normal({17}, b, 0, 1, DType::f64)));
  EXPECT_TRUE(equal_to(ops::randint({13}, -5, 5, a), ops::randint({13}, -5, 5, b)));
  EXPECT_EQ(a.randperm(31), b.randperm(31));
  EXPECT_TRUE(equal_to(ops::bernoulli({9}, 0.3, a), ops::bernoulli({9}, 0.3, b)));
  EXPECT_EQ(a.state(), b.state());
}

TEST(CoreRng, DifferentSeedsAndStreamsDiffer) {
  Generator base(7, 0), other_stream(7, 1), other_seed(8, 0);
  Tensor x = Tensor::uniform({1000}, base), y = Tensor::uniform({1000}, other_stream),
         z = Tensor::uniform({1000}, other_seed);
  // Equal float32 pairs by chance: about 1000 / 2^24; a handful would already be suspicious.
  EXPECT_LE(ops::sum(ops::eq(x, y)).item(), 2);
  EXPECT_LE(ops::sum(ops::eq(x, z)).item(), 2);
  EXPECT_LE(ops::sum(ops::eq(y, z)).item(), 2);
}

TEST(CoreRng, StateSaveRestoreReplaysTheSequence) {
  Generator g(99, 3);
  Tensor::uniform({11}, g);  // advance
  const GeneratorState saved = g.state();
  Tensor u1 = Tensor::uniform({3, 5}, g, -1, 1, DType::f64);
  Tensor n1 = Tensor::normal({7}, g);
  uint64_t r1 = g.next_u64();
  g.set_state(saved);
  EXPECT_TRUE(equal_to(Tensor::uniform({3, 5}, g, -1, 1, DType::f64), u1));
  EXPECT_TRUE(equal_to(Tensor::normal({7}, g), n1));
  EXPECT_EQ(g.next_u64(), r1);
  // Into a fresh generator too.
  Generator h;
  h.set_state(saved);
  EXPECT_TRUE(equal_to(Tensor::uniform({3, 5}, h, -1, 1, DType::f64), u1));
}

TEST(CoreRng, FillsConsumeTheDocumentedBlocksAndElementFormula) {
  Generator g(5);
  const uint64_t start = g.state().offset;
  Tensor f = Tensor::uniform({17}, g);  // float32: 4 per block → 5 blocks
  EXPECT_EQ(g.state().offset - start, 5u);
  Tensor d = Tensor::uniform({17}, g, 0, 1, DType::f64);  // float64: 2 per block → 9 blocks
  EXPECT_EQ(g.state().offset - start, 14u);
  g.next_u32();
  EXPECT_EQ(g.state().offset - start, 15u);
  // Element i of a float32 fill is word i % 4 of block first + i / 4.
  for (int64_t i = 0; i < 17; ++i)
    ASSERT_EQ(float(f.at({i})), u32_to_unit_float(g.block(start + uint64_t(i / 4))[size_t(i % 4)])) << i;
  for (int64_t i = 0; i < 17; ++i) {
    auto w = g.block(start + 5 + uint64_t(i / 2));
    uint64_t bits = (uint64_t(w[size_t(2 * (i % 2))]) << 32) | w[size_t(2 * (i % 2) + 1)];
    ASSERT_EQ(d.at({i}), u64_to_unit_double(bits)) << i;
  }
}

TEST(CoreRng, UniformRangeAndMean) {
  Generator g(21);
  for (DType dt : {DType::f32, DType::f64}) {
    const double lo = -2, hi = 3;
    Moments m = moments(Tensor::uniform({kN}, g, lo, hi, dt));
    EXPECT_GE(m.min, lo);
    EXPECT_LT(m.max, hi);
    const double sigma = (hi - lo) / std::sqrt(12.0);
    EXPECT_NEAR(m.mean, (lo + hi) / 2, 5 * sigma / std::sqrt(double(kN))) << dt;
    EXPECT_NEAR(m.std, sigma, 5 * sigma / std::sqrt(2.0 * double(kN))) << dt;  // loose for uniform data
  }
  // Unit conversions stay below 1 at the largest input.
  EXPECT_LT(u32_to_unit_float(0xffffffffu), 1.0f);
  EXPECT_LT(u64_to_unit_double(~0ull), 1.0);
}

TEST(CoreRng, NormalMeanAndStd) {
  Generator g(22);
  for (DType dt : {DType::f32, DType::f64}) {
    const double mean = 1.5, sd = 2.0;
    Moments m = moments(Tensor::normal({kN}, g, mean, sd, dt));
    EXPECT_NEAR(m.mean, mean, 5 * sd / std::sqrt(double(kN))) << dt;
    EXPECT_NEAR(m.std, sd, 5 * sd / std::sqrt(2.0 * double(kN))) << dt;
    EXPECT_TRUE(std::isfinite(m.min) && std::isfinite(m.max)) << dt;  // u1 ∈ (0, 1]: no log(0)
  }
}

TEST(CoreRng, RandintRandpermBernoulli) {
  Generator g(23);
  Tensor r = ops::randint({kN}, -3, 4, g);
  Moments m = moments(r);
  EXPECT_EQ(m.min, -3);
  EXPECT_EQ(m.max, 3);
  // Uniform on 7 values: σ² = (7² − 1)/12 = 4.
  EXPECT_NEAR(m.mean, 0, 5 * 2 / std::sqrt(double(kN)));

  std::vector<int64_t> p = g.randperm(50);
  std::vector<int64_t> sorted = p;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> iota(50);
  std::iota(iota.begin(), iota.end(), 0);
  EXPECT_EQ(sorted, iota);
  EXPECT_NE(p, iota);  // the identity has probability 1/50!
  Tensor pt = ops::randperm(17, g);
  EXPECT_TRUE(equal_to(ops::sort(pt, 0).first, Tensor::arange(17)));
  EXPECT_TRUE(g.randperm(0).empty());

  const double prob = 0.3;
  Moments b = moments(ops::bernoulli({kN}, prob, g));
  EXPECT_NEAR(b.mean, prob, 5 * std::sqrt(prob * (1 - prob) / double(kN)));
  EXPECT_EQ(b.min, 0);
  EXPECT_EQ(b.max, 1);
}

TEST(CoreRng, LargeFillsDoNotDependOnTheThreadCount) {
  // 2^17 elements: above the parallel grain, so the fill is split across the OpenMP threads.
  const int before = num_threads();
  const GeneratorState state{314, 2, 1000};
  auto fill = [&](int threads, DType dt, bool normal) {
    set_num_threads(threads);
    Generator g;
    g.set_state(state);
    Tensor t = normal ? Tensor::normal({1 << 17}, g, 0, 1, dt) : Tensor::uniform({1 << 17}, g, 0, 1, dt);
    return std::make_pair(t, g.state());
  };
  for (DType dt : {DType::f32, DType::f64})
    for (bool normal : {false, true}) {
      auto [one, s1] = fill(1, dt, normal);
      auto [two, s2] = fill(2, dt, normal);
      EXPECT_TRUE(equal_to(one, two)) << dt << (normal ? " normal" : " uniform");
      EXPECT_EQ(s1, s2);
    }
  set_num_threads(before);
}

// core/philox.h's conversions (shared with the CUDA kernels) are rng.h's, at the ends and in between.
TEST(CoreRng, SharedPhiloxConversionsAreTheHostOnes) {
  Generator g(8);
  for (int i = 0; i < 4096; ++i) {
    const uint64_t x = i < 2 ? (i == 0 ? 0 : ~0ull) : g.next_u64();
    ASSERT_EQ(philox::unit_float(uint32_t(x)), u32_to_unit_float(uint32_t(x))) << x;
    ASSERT_EQ(philox::unit_double(x), u64_to_unit_double(x)) << x;
  }
  const philox::Words w = philox::block(5, 6, 7);
  EXPECT_EQ(philox::pair(w, 1), (uint64_t(w.w[2]) << 32) | w.w[3]);
}

// The float32 uniform fill runs Philox on SIMD vectors (core/cpu/random.cpp): on every target, each
// element must equal the scalar formula lo + span·u32_to_unit_float(word i % 4 of block first + i / 4),
// exactly for [0, 1) (dropout's range) and within one float rounding of the sum's terms for another. Sizes
// cover partial vectors and the partial last block; a start 3 blocks below 2^32 makes the low counter
// word wrap inside a vector (its scalar path); 2^17 elements take the parallel path.
class CoreRngSimd : public testing::SimdTargetTest {};

TEST_P(CoreRngSimd, FloatUniformMatchesTheScalarFormulaOnEveryTarget) {
  for (const uint64_t offset : {uint64_t(0), uint64_t(7), (uint64_t(1) << 32) - 3, (uint64_t(5) << 32) - 20})
    for (const int64_t n : {int64_t(1), int64_t(3), int64_t(4), int64_t(37), int64_t(130), int64_t(1) << 17})
      for (const auto& [lo, hi] : {std::pair{0.0, 1.0}, std::pair{-2.5, 3.0}}) {
        Generator g(99, 4);
        g.set_state({99, 4, offset});
        const std::vector<float> got = Tensor::uniform({n}, g, lo, hi).to_vector<float>();
        ASSERT_EQ(g.state().offset, offset + uint64_t((n + 3) / 4));
        const float flo = float(lo), span = float(hi - lo);
        for (int64_t i = 0; i < n; ++i) {
          const float u = u32_to_unit_float(g.block(offset + uint64_t(i / 4))[size_t(i % 4)]);
          if (lo == 0) {
            ASSERT_EQ(got[size_t(i)], u) << "offset " << offset << " n " << n << " i " << i;
          } else {
            const double want = double(flo) + double(span * u);
            ASSERT_NEAR(got[size_t(i)], want, 1.2e-7 * (std::abs(lo) + double(span * u)))
                << "offset " << offset << " n " << n << " i " << i;
          }
        }
      }
}

// Dropout in one pass (kernels.h `dropout`) against the op-by-op form it replaces, on every target:
// x · (bernoulli(keep) · (1/keep)) from a generator in the same state, bit for bit (signed zeros
// included; NaN stays NaN), the generator moved by the same blocks; x strided (a transposed view) or
// not; sizes and offsets as above, so partial vectors, the partial last block, the counter wrap and the
// parallel path are all met.
TEST_P(CoreRngSimd, DropoutIsTheOpByOpFormBitForBitOnEveryTarget) {
  const auto same_bits = [](float a, float b) {
    return (std::isnan(a) && std::isnan(b)) || std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b);
  };
  for (const uint64_t offset : {uint64_t(0), uint64_t(7), (uint64_t(1) << 32) - 3})
    for (const int64_t n : {int64_t(1), int64_t(3), int64_t(37), int64_t(130), int64_t(1) << 17})
      for (const double keep : {0.9, 0.5}) {
        Generator data(5);
        Tensor x = Tensor::uniform({n}, data, -2, 2);
        x.data<float>()[0] = -x.data<float>()[0];
        if (n > 2) x.data<float>()[2] = std::numeric_limits<float>::quiet_NaN();
        Generator a(31, 2), b(31, 2);
        a.set_state({31, 2, offset});
        b.set_state(a.state());
        const std::vector<float> got = ops::apply_dropout(x, ops::draw_dropout_mask(a, n, keep)).to_vector<float>();
        const std::vector<float> want =
            ops::mul(x, ops::mul(ops::bernoulli({n}, keep, b), 1 / keep)).to_vector<float>();
        ASSERT_EQ(a.state(), b.state());
        for (int64_t i = 0; i < n; ++i)
          ASSERT_TRUE(same_bits(got[size_t(i)], want[size_t(i)]))
              << "offset " << offset << " n " << n << " keep " << keep << " i " << i << ": " << got[size_t(i)]
              << " against " << want[size_t(i)];
      }
  // A transposed view is dropped in its logical (row-major) order, as the op-by-op form does.
  Generator data(6), a(8), b(8);
  const Tensor xt = Tensor::uniform({40, 30}, data, -1, 1).transpose(0, 1);
  const Tensor got = ops::apply_dropout(xt, ops::draw_dropout_mask(a, xt.numel(), 0.8));
  const Tensor want = ops::mul(xt, ops::mul(ops::bernoulli(xt.shape(), 0.8, b), 1 / 0.8));
  EXPECT_TRUE(equal_to(got, want));
  EXPECT_EQ(got.shape(), xt.shape());
}

// The gate and the residual (kernels.h `dropout`) against the ops one after another, bit for bit on
// every target: where(gate > 0, dropout(x), 0) then residual + that; gates that are 0, −0 and NaN
// drop the element; sizes cross the vector, block and parallel boundaries; operands may be strided.
TEST_P(CoreRngSimd, DropoutGateAndResidualAreTheOpsOneAfterAnother) {
  const auto same_bits = [](float a, float b) {
    return (std::isnan(a) && std::isnan(b)) || std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b);
  };
  for (const int64_t n : {int64_t(1), int64_t(5), int64_t(37), int64_t(130), int64_t(1) << 17}) {
    Generator data(9);
    Tensor x = Tensor::uniform({n}, data, -2, 2), gate = Tensor::uniform({n}, data, -1, 1);
    const Tensor residual = Tensor::uniform({n}, data, -3, 3);
    if (n > 3) {
      gate.data<float>()[1] = 0.0f;
      gate.data<float>()[2] = -0.0f;
      gate.data<float>()[3] = std::numeric_limits<float>::quiet_NaN();
      x.data<float>()[0] = std::numeric_limits<float>::quiet_NaN();
    }
    for (int variant = 0; variant < 3; ++variant) {  // gate; residual; both
      const Tensor g = variant != 1 ? gate : Tensor(), r = variant != 0 ? residual : Tensor();
      Generator a(17, 3), b(17, 3);
      const ops::DropoutMask m = ops::draw_dropout_mask(a, n, 0.8);
      Tensor want = ops::apply_dropout(x, ops::draw_dropout_mask(b, n, 0.8));
      if (g.defined()) want = ops::where(ops::gt(g, 0.0), want, Tensor::zeros({n}));
      if (r.defined()) want = ops::add(r, want);
      const std::vector<float> got_v = ops::apply_dropout(x, m, g, r).to_vector<float>(),
                               want_v = want.to_vector<float>();
      for (int64_t i = 0; i < n; ++i)
        ASSERT_TRUE(same_bits(got_v[size_t(i)], want_v[size_t(i)]))
            << "variant " << variant << " n " << n << " i " << i << ": " << got_v[size_t(i)] << " against "
            << want_v[size_t(i)];
    }
  }
  // Strided operands are read in their logical order.
  Generator data(10), a(12), b(12);
  const Tensor xt = Tensor::uniform({40, 30}, data, -1, 1).transpose(0, 1);
  const Tensor gt = Tensor::uniform({40, 30}, data, -1, 1).transpose(0, 1), rt = Tensor::uniform({30, 40}, data, -1, 1);
  const Tensor got = ops::apply_dropout(xt, ops::draw_dropout_mask(a, xt.numel(), 0.7), gt, rt);
  const Tensor want = ops::add(
      rt, ops::where(ops::gt(gt, 0.0), ops::apply_dropout(xt, ops::draw_dropout_mask(b, xt.numel(), 0.7)),
                     Tensor::zeros(xt.shape())));
  EXPECT_TRUE(equal_to(got, want));
}
LINTRA_ON_EVERY_SIMD_TARGET(CoreRngSimd);

TEST(CoreRng, DropoutRefusesWhatItCannotApply) {
  Generator g(3);
  const ops::DropoutMask m = ops::draw_dropout_mask(g, 12, 0.9);
  EXPECT_HAS(error_of([&] { ops::apply_dropout(Tensor::zeros({12}, DType::f64), m); }), "expected float32");
  EXPECT_HAS(error_of([&] { ops::apply_dropout(Tensor::zeros({3, 5}), m); }), "drawn for 12 elements, [3, 5] has 15");
  EXPECT_HAS(error_of([&] { ops::draw_dropout_mask(g, 4, 0.0); }), "keep probability 0 is outside (0, 1]");
  EXPECT_HAS(error_of([&] { ops::apply_dropout(Tensor::zeros({12}), m, Tensor::zeros({3, 4})); }),
             "the gate must be float32 of x's shape [12]");
  EXPECT_HAS(error_of([&] { ops::apply_dropout(Tensor::zeros({12}), m, Tensor(), Tensor::zeros({12}, DType::f64)); }),
             "the residual must be float32 of x's shape [12]");
}

}  // namespace
}  // namespace lintra
