// test_matmul_bf16.cpp — invariant: with MatmulPrecision::bf16 (core/matmul_precision.h) a large float32
// GEMM equals the float64 product of its operands rounded to bfloat16 (nearest even), summed in float32,
// on each of the CPU matmul's schedules that take it (a's batch folded into rows, a 2-D product, the long
// reduction of a weight gradient, transposed views of either operand, accumulating onto a bias); the
// result differs from the float32 product by bf16's rounding (so the bf16 path really ran); small GEMMs
// and float64 stay exact float32/float64; the setting parses and names its values. Skipped (but the
// parse checks) where bf16 products cannot run: a build without oneDNN, a CPU without AVX512_BF16/AMX.
//
// Tolerances: with bf16 operands each product is exact in float32, so the error against the float64 sum
// of the rounded operands is float32 summation only: K·u·Σ|a·b| with |a|, |b| ≤ 1/2, u = 2^-24:
// K = 64: 64·6e-8·16 ≈ 6e-5 worst case → atol 1e-4; K = 4,100 (random signs, √K growth) atol 2e-3. The
// bf16 rounding itself moves each operand by up to 2^-9 relatively: against the float32 product the
// results differ by about √K·2^-9·E|a·b| ≈ 1e-3 at K = 64, far above the float32 tolerance.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "core/matmul_precision.h"
#include "core/ops.h"
#include "core/reference/reference.h"
#include "tests/core/core_test_util.h"

namespace lintra {
namespace {

using testing::close_to;
using testing::Tol;

// x rounded to the nearest bfloat16 (ties to even), kept as float: what oneDNN's reorder computes.
float to_bf16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  u += 0x7FFFu + ((u >> 16) & 1u);
  u &= 0xFFFF0000u;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// A float32 tensor with every element rounded to bf16 (contiguous, same shape).
Tensor rounded(const Tensor& t) {
  Tensor out = t.contiguous().clone();
  float* p = out.data<float>();
  for (int64_t i = 0; i < out.numel(); ++i) p[i] = to_bf16(p[i]);
  return out;
}

// The oracle: float64 sums of the bf16-rounded operands (transposed views stay views of the rounded copy).
Tensor bf16_oracle(const Tensor& a, const Tensor& b) { return reference::matmul(rounded(a), rounded(b)); }

class PrecisionGuard {
 public:
  explicit PrecisionGuard(MatmulPrecision p) { set_matmul_precision(p); }
  ~PrecisionGuard() { set_matmul_precision(MatmulPrecision::fp32); }
};

#define SKIP_WITHOUT_BF16()                                                                              \
  do {                                                                                                    \
    const std::string why = bf16_matmul_unsupported_reason();                                             \
    if (!why.empty()) GTEST_SKIP() << "bf16 products cannot run here: " << why;                          \
  } while (0)

TEST(CoreMatmulBf16, LargeProductsEqualTheOracleOfBf16OperandsOnEverySchedule) {
  SKIP_WITHOUT_BF16();
  Generator gen(61);
  PrecisionGuard bf16(MatmulPrecision::bf16);
  struct Case {
    Shape a, b;
    bool ta, tb;
    double atol;
  };
  const std::vector<Case> cases = {
      {{300, 64}, {64, 200}, false, false, 1e-4},     // one 2-D product
      {{3, 100, 64}, {64, 128}, false, false, 1e-4},  // a's batch folded into rows
      {{300, 64}, {200, 64}, false, true, 1e-4},      // x·Wᵀ: the linear layer's forward (b transposed)
      {{4100, 40}, {4100, 33}, true, false, 2e-3},    // Aᵀ·B, K = 4,100: a weight gradient's long reduction
      {{64, 300}, {200, 64}, true, true, 1e-4},       // both transposed
  };
  for (const Case& c : cases) {
    Tensor a = Tensor::uniform(c.a, gen, -0.5, 0.5), b = Tensor::uniform(c.b, gen, -0.5, 0.5);
    if (c.ta) a = a.transpose(-1, -2);
    if (c.tb) b = b.transpose(-1, -2);
    const Tensor got = ops::matmul(a, b);
    EXPECT_TRUE(close_to(got, bf16_oracle(a, b), {0, c.atol})) << shape_str(c.a) << " · " << shape_str(c.b);
    EXPECT_GT(ops::max_abs_diff(got, reference::matmul(a, b).to(DType::f32)), 10 * c.atol)
        << shape_str(c.a) << ": as close to the float32 product as float32 is: the bf16 path did not run";
  }
  // Accumulating onto a bias (addmm: the GEMM's sum post-op).
  const Tensor bias = Tensor::uniform({200}, gen, -1, 1), x = Tensor::uniform({300, 64}, gen, -0.5, 0.5),
               w = Tensor::uniform({200, 64}, gen, -0.5, 0.5);
  EXPECT_TRUE(close_to(ops::addmm(bias, x, w.transpose(0, 1)),
                       ops::add(bf16_oracle(x, w.transpose(0, 1)), bias.to(DType::f64)), {0, 1e-4}));
}

TEST(CoreMatmulBf16, SmallProductsAndFloat64StayExact) {
  SKIP_WITHOUT_BF16();
  Generator gen(62);
  PrecisionGuard bf16(MatmulPrecision::bf16);
  const Tensor a = Tensor::uniform({3, 5}, gen, -1, 1), b = Tensor::uniform({5, 7}, gen, -1, 1);
  EXPECT_TRUE(close_to(ops::matmul(a, b), reference::matmul(a, b), {0, 2e-6}));  // under 2^21 multiply-adds
  const Tensor a64 = Tensor::uniform({300, 64}, gen, -1, 1, DType::f64);
  const Tensor b64 = Tensor::uniform({64, 200}, gen, -1, 1, DType::f64);
  EXPECT_TRUE(close_to(ops::matmul(a64, b64), reference::matmul(a64, b64), {0, 1e-12}));
}

TEST(CoreMatmulBf16, ThePrecisionParsesAndNamesItsValues) {
  EXPECT_EQ(parse_matmul_precision("fp32"), MatmulPrecision::fp32);
  EXPECT_EQ(parse_matmul_precision("bf16"), MatmulPrecision::bf16);
  try {
    parse_matmul_precision("fp16");
    ADD_FAILURE() << "fp16 parsed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'fp16'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'bf16'"), std::string::npos) << e.what();
  }
  EXPECT_STREQ(matmul_precision_name(MatmulPrecision::bf16), "bf16");
  const std::string why = bf16_matmul_unsupported_reason();
  if (!why.empty()) {  // asking for bf16 where it cannot run says why
    try {
      set_matmul_precision(MatmulPrecision::bf16);
      ADD_FAILURE() << "bf16 accepted although: " << why;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(matmul_precision(), MatmulPrecision::fp32);
}

}  // namespace
}  // namespace lintra
