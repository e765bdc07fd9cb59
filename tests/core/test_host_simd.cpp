// test_host_simd.cpp — invariant: the host vector primitives of core/host_simd.h equal their float64
// definition on every SIMD target this CPU can run (forced: CoreHostSimd.<Case>/AVX2, …/SSE4, …/SCALAR).
//
// gemv_rows_f32: y[b, r] = bias[r] + Σ_i W[r, i]·x[b, i] over a block [r0, r1) of rows; rows outside
// the block stay untouched. Inputs lengths 1 … 259 (below, at and past a vector, the 4-row groups and
// the single rows left over), batch 1 and 3. Tolerance: the float32 sum of `in` products differs from
// the float64 one by at most about in·u·Σ|W·x| (u = 2^-24), checked per element with that bound.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <vector>

#include "core/host_simd.h"
#include "core/rng.h"
#include "core/tensor.h"
#include "tests/core/simd_targets.h"

namespace lintra {
namespace {

class CoreHostSimd : public testing::SimdTargetTest {};

std::vector<float> uniform(int64_t n, Generator& gen) {
  return Tensor::uniform({n}, gen, -1, 1, DType::f32).to_vector<float>();
}

TEST_P(CoreHostSimd, GemvRowsMatchesItsDefinitionOnABlockOfRows) {
  Generator gen(41);
  const int64_t rows = 23;
  for (int64_t in : {1, 3, 8, 17, 64, 259})
    for (int64_t B : {1, 3})
      for (auto [r0, r1] : {std::pair<int64_t, int64_t>{0, rows}, {5, 18}, {20, 23}}) {
        const std::vector<float> W = uniform(rows * in, gen), bias = uniform(rows, gen), x = uniform(B * in, gen);
        const float untouched = 1234.5f;
        std::vector<float> y(size_t(B * rows), untouched);
        simd::gemv_rows_f32(W.data(), bias.data(), x.data(), y.data(), B, in, rows, r0, r1);
        for (int64_t b = 0; b < B; ++b)
          for (int64_t r = 0; r < rows; ++r) {
            const float got = y[size_t(b * rows + r)];
            if (r < r0 || r >= r1) {
              EXPECT_EQ(got, untouched) << "row " << r << " is outside [" << r0 << ", " << r1 << ")";
              continue;
            }
            double want = bias[size_t(r)], magnitude = std::abs(bias[size_t(r)]);
            for (int64_t i = 0; i < in; ++i) {
              const double p = double(W[size_t(r * in + i)]) * double(x[size_t(b * in + i)]);
              want += p;
              magnitude += std::abs(p);
            }
            EXPECT_NEAR(got, want, double(in + 1) * std::ldexp(1.0, -24) * magnitude + 1e-30)
                << "in " << in << " B " << B << " b " << b << " row " << r;
          }
      }
}

// gemv_rows_bf16 is gemv_rows_f32 of the weights each rounded to bfloat16 (widening is exact and the
// sums run in the same order), bit for bit, on every target.
TEST_P(CoreHostSimd, GemvRowsBf16IsGemvRowsF32OfTheRoundedWeights) {
  Generator gen(43);
  const int64_t rows = 13;
  for (int64_t in : {1, 5, 16, 31, 259})
    for (int64_t B : {1, 2}) {
      const std::vector<float> W = uniform(rows * in, gen), bias = uniform(rows, gen), x = uniform(B * in, gen);
      std::vector<uint16_t> Wb(W.size());
      std::vector<float> Wr(W.size());
      for (size_t i = 0; i < W.size(); ++i) {
        Wb[i] = simd::to_bf16(W[i]);
        Wr[i] = simd::from_bf16(Wb[i]);
      }
      std::vector<float> got(size_t(B * rows), -1.0f), want(got.size(), -1.0f);
      simd::gemv_rows_bf16(Wb.data(), bias.data(), x.data(), got.data(), B, in, rows, 2, rows);
      simd::gemv_rows_f32(Wr.data(), bias.data(), x.data(), want.data(), B, in, rows, 2, rows);
      EXPECT_EQ(got, want) << "in " << in << " B " << B;
    }
}

LINTRA_ON_EVERY_SIMD_TARGET(CoreHostSimd);

// to_bf16 rounds to nearest, ties to even, with relative error ≤ 2^-8; from_bf16 widens exactly;
// infinities stay, NaN stays NaN.
TEST(CoreBf16, RoundsToNearestEvenAndWidensExactly) {
  EXPECT_EQ(simd::to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(simd::to_bf16(std::bit_cast<float>(0x3f808000u)), 0x3f80);  // tie, even below
  EXPECT_EQ(simd::to_bf16(std::bit_cast<float>(0x3f818000u)), 0x3f82);  // tie, even above
  EXPECT_EQ(simd::to_bf16(std::bit_cast<float>(0x3f808001u)), 0x3f81);  // past the tie
  EXPECT_EQ(simd::to_bf16(-2.0f), 0xc000);
  EXPECT_EQ(simd::from_bf16(simd::to_bf16(INFINITY)), INFINITY);
  EXPECT_EQ(simd::from_bf16(simd::to_bf16(-INFINITY)), -INFINITY);
  EXPECT_TRUE(std::isnan(simd::from_bf16(simd::to_bf16(NAN))));
  EXPECT_TRUE(std::isnan(simd::from_bf16(simd::to_bf16(std::bit_cast<float>(0x7f800001u)))));  // signalling NaN
  Generator gen(7);
  for (float v : uniform(1000, gen)) {
    const float r = simd::from_bf16(simd::to_bf16(v * 1e3f));
    EXPECT_LE(std::abs(r - v * 1e3f), std::ldexp(std::abs(v * 1e3f), -8)) << v;
    EXPECT_EQ(simd::to_bf16(r), simd::to_bf16(v * 1e3f));
  }
}

}  // namespace
}  // namespace lintra
