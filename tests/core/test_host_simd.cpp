// test_host_simd.cpp — invariant: the host vector primitives of core/host_simd.h equal their float64
// definition on every SIMD target this CPU can run (forced: CoreHostSimd.<Case>/AVX2, …/SSE4, …/SCALAR).
//
// gemv_packed: y[b, r] = bias[r] + Σ_k W[r, k]·x[b, k] over a block [r0, r1) of rows; rows outside
// the block stay untouched. Inputs lengths 1 … 259 (odd ones pad bf16's last column pair), 40 and 150
// rows (a partial last group of 16; 150 rows fill the 8-group tiles of AVX-512 and leave single
// groups), blocks that start and end on groups or at the last row, batch 1 and 3. Tolerance: the
// float32 sum of `in` products differs from the float64 one by at most about in·u·Σ|W·x| (u = 2^-24),
// checked per element with that bound. A row's value does not depend on the block it is computed in
// (bit for bit), and packing into a slice of a larger block changes nothing.
//
// outer_update_read: the linear-attention state step S += a·bᵀ, out = Sᵀ·c (below).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/host_simd.h"
#include "core/rng.h"
#include "core/tensor.h"
#include "tests/core/simd_targets.h"
#include "tests/test_util.h"

namespace lintra {
namespace {

using testing::error_of;

class CoreHostSimd : public testing::SimdTargetTest {};

std::vector<float> uniform(int64_t n, Generator& gen) {
  return Tensor::uniform({n}, gen, -1, 1, DType::f32).to_vector<float>();
}

TEST_P(CoreHostSimd, GemvPackedMatchesItsDefinitionOnABlockOfRows) {
  Generator gen(41);
  for (int64_t rows : {40, 150})
    for (int64_t in : {1, 3, 8, 17, 64, 259})
      for (int64_t B : {1, 3})
        for (auto [r0, r1] : {std::pair<int64_t, int64_t>{0, rows}, {16, rows}, {0, 16}, {16, 32}}) {
          const std::vector<float> W = uniform(rows * in, gen), bias = uniform(rows, gen), x = uniform(B * in, gen);
          const simd::PackedRows packed = simd::pack_rows_f32(W.data(), rows, in);
          const float untouched = 1234.5f;
          std::vector<float> y(size_t(B * rows), untouched);
          simd::gemv_packed(packed, bias.data(), x.data(), y.data(), B, r0, r1);
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
                  << "rows " << rows << " in " << in << " B " << B << " b " << b << " row " << r;
            }
        }
}

// A row's sum is the same whatever block it is computed in (the engine's threads take blocks that
// start and end anywhere on the groups): 150 rows computed whole and in blocks of 1, 2, 3, 4, 6, 8 and 9
// groups (whole tiles, then tiles of 4, 2 and 1) agree bit for bit, in float32 and bf16.
TEST_P(CoreHostSimd, GemvPackedRowsDoNotDependOnTheBlock) {
  Generator gen(45);
  const int64_t rows = 150, in = 67, B = 2;
  const std::vector<float> W = uniform(rows * in, gen), bias = uniform(rows, gen), x = uniform(B * in, gen);
  for (const simd::PackedRows& packed : {simd::pack_rows_f32(W.data(), rows, in), simd::pack_rows_bf16(W.data(), rows, in)}) {
    std::vector<float> whole(size_t(B * rows));
    simd::gemv_packed(packed, bias.data(), x.data(), whole.data(), B, 0, rows);
    for (int64_t groups : {1, 2, 3, 4, 6, 8, 9}) {
      std::vector<float> pieces(whole.size(), -1.0f);
      for (int64_t r0 = 0; r0 < rows; r0 += 16 * groups)
        simd::gemv_packed(packed, bias.data(), x.data(), pieces.data(), B, r0, std::min(rows, r0 + 16 * groups));
      EXPECT_EQ(pieces, whole) << "blocks of " << groups << " groups";
    }
  }
}

// Packed in bf16, the product is the float32 one of the weights each rounded to bfloat16 (widening is
// exact and the sums run in the same order), bit for bit, on every target.
TEST_P(CoreHostSimd, GemvPackedBf16IsTheFloat32ProductOfTheRoundedWeights) {
  Generator gen(43);
  const int64_t rows = 37;
  for (int64_t in : {1, 5, 16, 31, 259})
    for (int64_t B : {1, 2}) {
      const std::vector<float> W = uniform(rows * in, gen), bias = uniform(rows, gen), x = uniform(B * in, gen);
      std::vector<float> Wr(W.size());
      for (size_t i = 0; i < W.size(); ++i) Wr[i] = simd::from_bf16(simd::to_bf16(W[i]));
      std::vector<float> got(size_t(B * rows), -1.0f), want(got.size(), -1.0f);
      simd::gemv_packed(simd::pack_rows_bf16(W.data(), rows, in), bias.data(), x.data(), got.data(), B, 16, rows);
      simd::gemv_packed(simd::pack_rows_f32(Wr.data(), rows, in), bias.data(), x.data(), want.data(), B, 16, rows);
      EXPECT_EQ(got, want) << "in " << in << " B " << B;
    }
}

// outer_update_read: S += a·bᵀ (each element within two roundings of S + a·b: targets without FMA
// round the product too), then out = Sᵀ·c within
// the float32 bound of an E-term sum, for state widths below, at and past a vector and past the
// four-vector chunks (M up to 70), E = 0 (out = 0, S untouched) to 33.
TEST_P(CoreHostSimd, OuterUpdateReadMatchesItsDefinition) {
  Generator gen(47);
  for (int64_t E : {0, 1, 5, 33})
    for (int64_t M : {1, 3, 8, 17, 32, 70}) {
      const std::vector<float> S0 = uniform(E * M, gen), a = uniform(E, gen), b = uniform(M, gen), c = uniform(E, gen);
      std::vector<float> S = S0, out(size_t(M), 99.0f);
      simd::outer_update_read(S.data(), a.data(), b.data(), c.data(), out.data(), E, M);
      const double u = std::ldexp(1.0, -24);
      for (int64_t e = 0; e < E; ++e)
        for (int64_t m = 0; m < M; ++m) {
          const double s0 = S0[size_t(e * M + m)], ab = double(a[size_t(e)]) * double(b[size_t(m)]);
          EXPECT_NEAR(S[size_t(e * M + m)], s0 + ab, 2 * u * (std::abs(s0) + std::abs(ab)) + 1e-30)
              << "E " << E << " M " << M;
        }
      for (int64_t m = 0; m < M; ++m) {
        double want = 0, magnitude = 0;
        for (int64_t e = 0; e < E; ++e) {
          const double p = double(c[size_t(e)]) * double(S[size_t(e * M + m)]);
          want += p;
          magnitude += std::abs(p);
        }
        EXPECT_NEAR(out[size_t(m)], want, double(E + 1) * u * magnitude + 1e-30) << "E " << E << " M " << M << " m " << m;
      }
    }
}

// A block that does not start and end on a group of 16 rows (or at the last row) is refused; an empty
// one is fine anywhere (the engine's last thread may get no rows).
TEST(CoreHostSimdPacked, ABlockOffTheGroupsIsAnError) {
  const std::vector<float> W(40 * 8, 0.5f), bias(40, 0.0f), x(8, 1.0f);
  std::vector<float> y(40);
  const simd::PackedRows packed = simd::pack_rows_f32(W.data(), 40, 8);
  for (auto [r0, r1] : {std::pair<int64_t, int64_t>{5, 16}, {0, 20}, {16, 41}, {32, 16}})
    EXPECT_THROW(simd::gemv_packed(packed, bias.data(), x.data(), y.data(), 1, r0, r1), Error) << r0 << " " << r1;
  EXPECT_NO_THROW(simd::gemv_packed(packed, bias.data(), x.data(), y.data(), 1, 40, 40));  // empty: no rows left
  EXPECT_NO_THROW(simd::gemv_packed(packed, bias.data(), x.data(), y.data(), 1, 32, 40));
  EXPECT_EQ(y[39], 4.0f);
}

// Packed into a slice of a larger block (as the engine packs a whole model into one), a matrix gives
// the products it gives packed on its own; a destination that is too small, not bytes, or not 64-byte
// aligned is refused by name.
TEST(CoreHostSimdPacked, PacksIntoASliceOfALargerBlock) {
  Generator gen(49);
  const int64_t rows = 40, in = 9;
  const std::vector<float> W = uniform(rows * in, gen), bias = uniform(rows, gen), x = uniform(in, gen);
  const int64_t bytes = simd::packed_rows_bytes(simd::PackedRows::Format::f32, rows, in);
  EXPECT_EQ(bytes % 64, 0);
  EXPECT_GE(bytes, 48 * in * 4);  // three groups of 16 rows, float32
  const Tensor block = Tensor::full({3 * bytes}, 7.0, DType::u8);
  const simd::PackedRows in_block = simd::pack_rows_f32(W.data(), rows, in, block.narrow(0, bytes, bytes));
  EXPECT_EQ(in_block.f32(), reinterpret_cast<const float*>(block.data<uint8_t>() + bytes));
  EXPECT_EQ(block.data<uint8_t>()[0], 7);  // the rest of the block untouched
  EXPECT_EQ(block.data<uint8_t>()[2 * bytes], 7);
  std::vector<float> got(static_cast<size_t>(rows)), want(static_cast<size_t>(rows));
  simd::gemv_packed(in_block, bias.data(), x.data(), got.data(), 1, 0, rows);
  simd::gemv_packed(simd::pack_rows_f32(W.data(), rows, in), bias.data(), x.data(), want.data(), 1, 0, rows);
  EXPECT_EQ(got, want);
  EXPECT_HAS(error_of([&] { simd::pack_rows_f32(W.data(), rows, in, Tensor::empty({bytes - 64}, DType::u8)); }),
             "at least");
  EXPECT_HAS(error_of([&] { simd::pack_rows_bf16(W.data(), rows, in, Tensor::empty({bytes}, DType::f32)); }),
             "pack_rows_bf16: the destination must be");
  EXPECT_HAS(error_of([&] { simd::pack_rows_f32(W.data(), rows, in, block.narrow(0, 1, bytes)); }), "64-byte aligned");
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
