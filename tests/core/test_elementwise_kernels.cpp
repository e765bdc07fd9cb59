// test_elementwise_kernels.cpp — invariant: every elementwise CPU kernel (all UnaryOp values, all
// BinaryOp values including comparisons and the derivative helpers, where) equals its slow
// float64 oracle in core/reference/ on random inputs of odd sizes, in float32 and float64, for
// contiguous, permuted, step-sliced and expanded (stride-0) inputs, with broadcasting.
//
// Tolerances (|got − want| ≤ atol + rtol·|want|, want computed in float64 from the same inputs):
//   float32: rtol 1e-5 — each kernel evaluates a short formula in float32 (vectorised exp: ≤ 2 ulp,
//            libm: ≤ 1 ulp, a few more roundings for gelu/softplus/sigmoid/elu), i.e. ≲ 10 ulp of
//            2^-23 ≈ 1.2e-7; 1e-5 is ~80 ulp, small enough to catch any wrong formula or index.
//            atol 1e-6 covers results near 0 produced by cancellation (eˣ − 1 in elu, x − y).
//   float64: rtol 1e-12, atol 1e-14 — the same formulas in double, differing from the oracle only by
//            reassociation (a few ulp of 2^-52 ≈ 2.2e-16).
//   integer results (comparisons, int64 maps): exact.
#include <gtest/gtest.h>

#include "core/kernels.h"
#include "core/ops.h"
#include "core/reference/reference.h"
#include "tests/core/core_test_util.h"

namespace lintra {
namespace {

using kernels::BinaryOp;
using kernels::UnaryOp;
using testing::close_to;
using testing::describe_case;
using testing::equal_to;
using testing::kAllLayouts;
using testing::Layout;
using testing::make_input;
using testing::Tol;

Tol tol_for(DType dt) { return dt == DType::f32 ? Tol{1e-5, 1e-6} : Tol{1e-12, 1e-14}; }

const std::vector<Shape> kShapes = {{3, 5, 7}, {1, 13}, {17}, {}};
const std::vector<DType> kFloat = {DType::f32, DType::f64};

// Each op with an input range inside its domain and away from nothing in particular (the kernels
// are compared with their oracle, not differentiated, so kinks are fine).
struct UnaryCase {
  UnaryOp op;
  const char* name;
  double lo, hi;  // input range
  double a = 0, b = 0;
};
const std::vector<UnaryCase> kUnary = {
    {UnaryOp::neg, "neg", -3, 3},
    {UnaryOp::exp, "exp", -10, 10},
    {UnaryOp::log, "log", 0.05, 20},
    {UnaryOp::log1p, "log1p", -0.9, 5},
    {UnaryOp::sqrt, "sqrt", 0.01, 9},
    {UnaryOp::rsqrt, "rsqrt", 0.01, 9},
    {UnaryOp::abs, "abs", -3, 3},
    {UnaryOp::square, "square", -3, 3},
    {UnaryOp::tanh, "tanh", -4, 4},
    {UnaryOp::sigmoid, "sigmoid", -8, 8},
    {UnaryOp::relu, "relu", -3, 3},
    {UnaryOp::gelu, "gelu", -5, 5},
    {UnaryOp::softplus, "softplus", -10, 10},
    {UnaryOp::sign, "sign", -3, 3},
    {UnaryOp::reciprocal, "reciprocal", 0.1, 5},
    {UnaryOp::elu, "elu", -4, 3, 1.3},
    {UnaryOp::pow_scalar, "pow_scalar(2)", -3, 3, 2.0},    // special-cased as x·x
    {UnaryOp::pow_scalar, "pow_scalar(0.5)", 0.01, 9, 0.5},  // special-cased as √x
    {UnaryOp::pow_scalar, "pow_scalar(3)", -3, 3, 3.0},
    {UnaryOp::pow_scalar, "pow_scalar(-1.5)", 0.1, 4, -1.5},
    {UnaryOp::clamp, "clamp", -3, 3, -0.5, 0.7},
    {UnaryOp::add_scalar, "add_scalar", -3, 3, 0.25},
    {UnaryOp::mul_scalar, "mul_scalar", -3, 3, -1.5},
    {UnaryOp::rsub_scalar, "rsub_scalar", -3, 3, 2.0},
};

TEST(core_elementwise, EveryUnaryOpIsCovered) {
  for (int op = 0; op <= int(UnaryOp::rsub_scalar); ++op) {
    bool found = false;
    for (const UnaryCase& c : kUnary) found = found || int(c.op) == op;
    EXPECT_TRUE(found) << "UnaryOp " << op << " has no test case";
  }
}

TEST(core_elementwise, UnaryMatchesReference) {
  Generator gen(11);
  for (const UnaryCase& c : kUnary)
    for (DType dt : kFloat)
      for (const Shape& s : kShapes)
        for (Layout l : kAllLayouts) {
          Tensor x = make_input(s, dt, l, gen, c.lo, c.hi);
          Tensor got = ops::unary(c.op, x, c.a, c.b);
          ASSERT_EQ(got.dtype(), dt);
          EXPECT_TRUE(close_to(got, reference::unary(c.op, x, c.a, c.b), tol_for(dt)))
              << c.name << ", " << describe_case(s, dt, l);
        }
}

TEST(core_elementwise, UnaryOnInt64IsExact) {
  Generator gen(12);
  const std::vector<UnaryCase> cases = {
      {UnaryOp::neg, "neg", 0, 0},           {UnaryOp::abs, "abs", 0, 0},
      {UnaryOp::square, "square", 0, 0},     {UnaryOp::add_scalar, "add_scalar", 0, 0, 7},
      {UnaryOp::mul_scalar, "mul_scalar", 0, 0, -3}, {UnaryOp::rsub_scalar, "rsub_scalar", 0, 0, 5},
      {UnaryOp::clamp, "clamp", 0, 0, -4, 9},
  };
  for (const UnaryCase& c : cases) {
    Tensor base = ops::randint({5, 7}, -50, 50, gen);
    for (const Tensor& x : {base, base.transpose(0, 1), base.slice(1, 0, 7, 3)}) {
      Tensor got = ops::unary(c.op, x, c.a, c.b);
      ASSERT_EQ(got.dtype(), DType::i64);
      EXPECT_TRUE(equal_to(got, reference::unary(c.op, x, c.a, c.b))) << c.name;
    }
  }
}

// --- binary ------------------------------------------------------------------------------------

struct BinaryCase {
  BinaryOp op;
  const char* name;
  double alo, ahi, blo, bhi;
  bool integer_valued = false;  // draw small integers so that equality ties occur
};
const std::vector<BinaryCase> kBinary = {
    {BinaryOp::add, "add", -3, 3, -3, 3},
    {BinaryOp::sub, "sub", -3, 3, -3, 3},
    {BinaryOp::mul, "mul", -3, 3, -3, 3},
    {BinaryOp::div, "div", -3, 3, 0.5, 2},
    {BinaryOp::pow, "pow", 0.1, 3, -2, 2},
    {BinaryOp::maximum, "maximum", -3, 3, -3, 3, true},
    {BinaryOp::minimum, "minimum", -3, 3, -3, 3, true},
    {BinaryOp::eq, "eq", -3, 3, -3, 3, true},
    {BinaryOp::ne, "ne", -3, 3, -3, 3, true},
    {BinaryOp::lt, "lt", -3, 3, -3, 3, true},
    {BinaryOp::le, "le", -3, 3, -3, 3, true},
    {BinaryOp::gt, "gt", -3, 3, -3, 3, true},
    {BinaryOp::ge, "ge", -3, 3, -3, 3, true},
    {BinaryOp::relu_backward, "relu_backward", -2, 2, -1, 1},
    {BinaryOp::gelu_backward, "gelu_backward", -2, 2, -4, 4},
    {BinaryOp::elu_backward, "elu_backward", -2, 2, -3, 3},
    {BinaryOp::sigmoid_backward, "sigmoid_backward", -2, 2, 0.01, 0.99},  // b is σ's output
    {BinaryOp::tanh_backward, "tanh_backward", -2, 2, -0.99, 0.99},       // b is tanh's output
};

TEST(core_elementwise, EveryBinaryOpIsCovered) {
  for (int op = 0; op <= int(BinaryOp::tanh_backward); ++op) {
    bool found = false;
    for (const BinaryCase& c : kBinary) found = found || int(c.op) == op;
    EXPECT_TRUE(found) << "BinaryOp " << op << " has no test case";
  }
}

// Shape pairs covering equal shapes, trailing broadcast, both sides broadcasting, rank difference
// and 0-d operands.
const std::vector<std::pair<Shape, Shape>> kPairs = {
    {{3, 5, 7}, {3, 5, 7}}, {{3, 5, 7}, {5, 1}}, {{1, 13}, {17, 1}},
    {{17}, {}},             {{3, 1, 7}, {1, 5, 1}}, {{}, {3, 5}},
};
const std::vector<std::pair<Layout, Layout>> kLayoutPairs = {
    {Layout::contiguous, Layout::contiguous},
    {Layout::permuted, Layout::strided},
    {Layout::strided, Layout::expanded},
    {Layout::expanded, Layout::permuted},
};

Tensor draw(const Shape& s, DType dt, Layout l, Generator& gen, double lo, double hi, bool integer_valued) {
  Tensor t = make_input(s, dt, l, gen, lo, hi);
  if (!integer_valued) return t;
  // Truncate to integers in place, keeping the layout (an expanded view receives the same value
  // for every repeat of an element, since the repeats were equal).
  t.copy_(t.to(DType::i64));
  return t;
}

TEST(core_elementwise, BinaryMatchesReferenceWithBroadcasting) {
  Generator gen(13);
  for (const BinaryCase& c : kBinary)
    for (DType dt : kFloat)
      for (const auto& [sa, sb] : kPairs)
        for (const auto& [la, lb] : kLayoutPairs) {
          Tensor a = draw(sa, dt, la, gen, c.alo, c.ahi, c.integer_valued);
          Tensor b = draw(sb, dt, lb, gen, c.blo, c.bhi, c.integer_valued);
          Tensor got = ops::binary(c.op, a, b, c.name);
          Tensor want = reference::binary(c.op, a, b);
          const bool cmp = c.op >= BinaryOp::eq && c.op <= BinaryOp::ge;
          ASSERT_EQ(got.dtype(), cmp ? kBool : dt) << c.name;
          std::string what = fmt::format("{}: a {} {}, b {} {}, {}", c.name, shape_str(sa), testing::layout_name(la),
                                         shape_str(sb), testing::layout_name(lb), dt);
          if (cmp) {
            EXPECT_TRUE(equal_to(got, want)) << what;
          } else {
            EXPECT_TRUE(close_to(got, want, tol_for(dt))) << what;
          }
        }
}

TEST(core_elementwise, ComparisonsSeeTies) {
  // Guards the test above: integer-valued draws really produce equal pairs.
  Generator gen(14);
  Tensor a = draw({3, 5, 7}, DType::f32, Layout::permuted, gen, -3, 3, true);
  Tensor b = draw({3, 5, 7}, DType::f32, Layout::strided, gen, -3, 3, true);
  EXPECT_GT(ops::sum(ops::eq(a, b)).item(), 0);
}

TEST(core_elementwise, WhereSelectsWithBroadcasting) {
  // where(c, a, b) = c·a + (1 − c)·b, exact in float64 for 0/1 weights.
  Generator gen(15);
  for (DType dt : kFloat)
    for (const auto& [la, lb] : kLayoutPairs) {
      Tensor cond = ops::bernoulli({3, 1, 7}, 0.5, gen, kBool);
      Tensor a = make_input({5, 7}, dt, la, gen);
      Tensor b = make_input({3, 5, 1}, dt, lb, gen);
      Tensor got = ops::where(cond, a, b);
      Tensor c = cond.to(DType::f64);
      Tensor want = reference::binary(
          BinaryOp::add, reference::binary(BinaryOp::mul, c, a),
          reference::binary(BinaryOp::mul, reference::unary(UnaryOp::rsub_scalar, c, 1.0), b));
      EXPECT_TRUE(equal_to(got, want)) << dt << " " << testing::layout_name(la) << "/" << testing::layout_name(lb);
      EXPECT_TRUE(equal_to(ops::masked_fill(a, cond, 2.5),
                           ops::where(cond, Tensor::full({}, 2.5, dt), a)));
    }
}

TEST(core_elementwise, CopyCastsAndBroadcastsIntoStridedDestinations) {
  Generator gen(16);
  Tensor src = Tensor::uniform({5, 1}, gen, -2, 2, DType::f64);
  Tensor dst = Tensor::zeros({7, 5}, DType::f32).transpose(0, 1);  // (5, 7), strided
  dst.copy_(src);
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 7; ++j) ASSERT_EQ(dst.at({i, j}), double(float(src.at({i, 0}))));
  Tensor f = Tensor::zeros({4, 6}, DType::f64).slice(1, 1, 6, 2);
  f.fill_(3.5);
  EXPECT_EQ(ops::sum(f).item(), 3.5 * 12);
}

}  // namespace
}  // namespace lintra
