// test_elementwise_kernels.cpp — invariant: every elementwise CPU kernel equals the reference formula
// of its op (the `reference` and `reference_backward` of the structs in core/unary_ops.h and
// core/binary_ops.h, run by core/reference/) on random inputs of odd sizes, in float32 and float64, for
// contiguous, permuted, step-sliced and expanded (stride-0) inputs, with broadcasting: unary, binary
// (comparisons included), unary_backward of every op that has a backward, and where. The case tables
// below must name every op of the lists (checked by iterating the lists), so a new op fails here until
// it has an input range.
//
// Tolerances (|got − want| ≤ atol + rtol·|want|, want computed in float64 from the same inputs):
//   float32: rtol 1e-5 — each kernel evaluates a short formula in float32 (vectorised exp: ≤ 2 ulp,
//            libm: ≤ 1 ulp, a few more roundings for gelu/softplus/sigmoid/elu and the backward
//            formulas), i.e. ≲ 10 ulp of 2^-23 ≈ 1.2e-7; 1e-5 is ~80 ulp, small enough to catch any
//            wrong formula or index. atol 1e-6 covers results near 0 produced by cancellation (eˣ − 1
//            in elu, x − y, 1 − y² in tanh's backward).
//   float64: rtol 1e-12, atol 1e-14 — the same formulas in double, differing from the oracle only by
//            reassociation (a few ulp of 2^-52 ≈ 2.2e-16).
//   integer results (comparisons, int64 maps): exact.
// The vector forms of the transcendental ops (core/cpu/unary_simd.cpp: contiguous float32, dispatched
// through Highway) are checked on every SIMD target this CPU can run, forced and checked
// (tests/core/simd_targets.h: CoreElementwiseSimd.<Case>/AVX2, …/SSE4, …/SCALAR), against the same
// oracle and tolerances, on runs long enough for full vectors, a partial tail and the parallel path,
// and at ±inf, NaN, overflow and underflow.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string>

#include "core/cpu/binary_simd.h"
#include "core/cpu/unary_simd.h"
#include "core/kernels.h"
#include "core/ops.h"
#include "core/reference/reference.h"
#include "tests/core/core_test_util.h"
#include "tests/core/simd_targets.h"

namespace lintra {
namespace {

using kernels::binary_op;
using kernels::BinaryOp;
using kernels::unary_op;
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

// Each op with an input range inside its domain (the kernels are compared with their oracle, and the
// random inputs never land exactly on a kink such as relu's 0).
struct UnaryCase {
  UnaryOp op;
  double lo, hi;  // input range
  double a = 0, b = 0;
};
const std::vector<UnaryCase> kUnary = {
    {unary_op<op::Neg>, -3, 3},
    {unary_op<op::Exp>, -10, 10},
    {unary_op<op::Log>, 0.05, 20},
    {unary_op<op::Log1p>, -0.9, 5},
    {unary_op<op::Sqrt>, 0.01, 9},
    {unary_op<op::Rsqrt>, 0.01, 9},
    {unary_op<op::Abs>, -3, 3},
    {unary_op<op::Square>, -3, 3},
    {unary_op<op::Tanh>, -4, 4},
    {unary_op<op::Sigmoid>, -8, 8},
    {unary_op<op::Relu>, -3, 3},
    {unary_op<op::Gelu>, -5, 5},
    {unary_op<op::Softplus>, -10, 10},
    {unary_op<op::Sign>, -3, 3},
    {unary_op<op::Reciprocal>, 0.1, 5},
    {unary_op<op::Elu>, -4, 3, 1.3},
    {unary_op<op::EluFeature>, -4, 3},
    {unary_op<op::PowScalar>, -3, 3, 2.0},    // special-cased as x·x (backward: x^1)
    {unary_op<op::PowScalar>, 0.01, 9, 0.5},  // special-cased as √x
    {unary_op<op::PowScalar>, -3, 3, 3.0},    // backward special-cased as x·x
    {unary_op<op::PowScalar>, 0.1, 4, -1.5},
    {unary_op<op::PowScalar>, 0.1, 4, 1.5},  // backward special-cased as √x
    {unary_op<op::Clamp>, -3, 3, -0.5, 0.7},
    {unary_op<op::AddScalar>, -3, 3, 0.25},
    {unary_op<op::MulScalar>, -3, 3, -1.5},
    {unary_op<op::RsubScalar>, -3, 3, 2.0},
    {unary_op<op::LogSigmoid>, -20, 20},
};

std::string label(const UnaryCase& c) { return fmt::format("{}(a={}, b={})", name(c.op), c.a, c.b); }

TEST(CoreElementwise, EveryUnaryOpHasACase) {
  op::for_each(op::UnaryOps{}, [&]<class Op>() {
    const bool found =
        std::any_of(kUnary.begin(), kUnary.end(), [](const UnaryCase& c) { return c.op == unary_op<Op>; });
    EXPECT_TRUE(found) << Op::name << " has no case in kUnary";
  });
}

TEST(CoreElementwise, OpNamesAreUniqueAndComeFromTheStructs) {
  std::set<std::string> unary_names, binary_names;
  op::for_each(op::UnaryOps{}, [&]<class Op>() {
    EXPECT_EQ(name(unary_op<Op>), std::string(Op::name));
    EXPECT_TRUE(unary_names.insert(Op::name).second) << Op::name << " is listed twice";
  });
  op::for_each(op::BinaryOps{}, [&]<class Op>() {
    EXPECT_EQ(name(binary_op<Op>), std::string(Op::name));
    EXPECT_TRUE(binary_names.insert(Op::name).second) << Op::name << " is listed twice";
  });
  EXPECT_EQ(unary_names.size(), op::UnaryOps::size);
  EXPECT_EQ(binary_names.size(), op::BinaryOps::size);
}

TEST(CoreElementwise, UnaryMatchesReference) {
  Generator gen(11);
  for (const UnaryCase& c : kUnary)
    for (DType dt : kFloat)
      for (const Shape& s : kShapes)
        for (Layout l : kAllLayouts) {
          Tensor x = make_input(s, dt, l, gen, c.lo, c.hi);
          Tensor got = ops::unary(c.op, x, c.a, c.b);
          ASSERT_EQ(got.dtype(), dt);
          EXPECT_TRUE(close_to(got, reference::unary(c.op, x, c.a, c.b), tol_for(dt)))
              << label(c) << ", " << describe_case(s, dt, l);
        }
}

// unary_backward reads only what the op's `saves` names: the others are passed undefined, as autograd does.
TEST(CoreElementwise, UnaryBackwardMatchesReferenceDerivative) {
  Generator gen(17);
  int tested = 0;
  for (const UnaryCase& c : kUnary) {
    if (!kernels::has_backward(c.op)) continue;
    ++tested;
    const op::Saves saves = kernels::backward_saves(c.op);
    for (DType dt : kFloat)
      for (const Shape& s : kShapes)
        for (Layout l : kAllLayouts) {
          Tensor x = make_input(s, dt, l, gen, c.lo, c.hi);
          Tensor g = make_input(s, dt, l == Layout::permuted ? Layout::strided : Layout::permuted, gen, -2, 2);
          Tensor y = ops::unary(c.op, x, c.a, c.b);
          Tensor got = ops::unary_backward(c.op, g, op::saves_x(saves) ? x : Tensor(),
                                           op::saves_y(saves) ? y : Tensor(), c.a, c.b);
          ASSERT_EQ(got.dtype(), dt);
          EXPECT_TRUE(close_to(got, reference::unary_backward(c.op, g, x, c.a, c.b), tol_for(dt)))
              << label(c) << " backward, " << describe_case(s, dt, l);
        }
  }
  int with_backward = 0;
  op::for_each(op::UnaryOps{}, [&]<class Op>() { with_backward += op::has_backward<Op>; });
  EXPECT_GE(tested, with_backward);
}

TEST(CoreElementwise, UnaryBackwardOfAnOpWithoutOneThrows) {
  Tensor x = Tensor::ones({3});
  EXPECT_THROW(ops::unary_backward(unary_op<op::Sign>, x, x, x), Error);
}

TEST(CoreElementwise, LogSigmoidIsFiniteAndAccurateForLargeInputs) {
  // log σ(x) ≈ x for x ≪ 0 and ≈ −e^{−x} for x ≫ 0; log(σ(x)) taken literally underflows to −inf
  // (or clamps) in float32 below x ≈ −88, and 1 − σ(x) rounds to 0 for large x.
  for (const auto& [dt, big] : {std::pair{DType::f32, 80.0}, std::pair{DType::f64, 700.0}}) {
    Tensor x = Tensor::from_vector(std::vector<double>{-big, -big / 2, -1, 0, 1, big / 2, big}, {7}).to(dt);
    Tensor y = ops::log_sigmoid(x);
    EXPECT_TRUE(ops::all_finite(y)) << dt;
    EXPECT_TRUE(close_to(y, reference::unary(unary_op<op::LogSigmoid>, x), tol_for(dt))) << dt;
    EXPECT_EQ(y.at({0}), double(Tensor::scalar(-big, dt).item())) << dt;  // −big − log1p(e^−big) rounds to −big
    EXPECT_LT(y.at({6}), 0.0) << dt;                                      // −e^−big, not 0
    Tensor dx = ops::unary_backward(unary_op<op::LogSigmoid>, Tensor::ones({7}, dt), x, Tensor());
    EXPECT_TRUE(ops::all_finite(dx)) << dt;
    EXPECT_TRUE(close_to(dx, reference::unary_backward(unary_op<op::LogSigmoid>, Tensor::ones({7}, dt), x),
                         tol_for(dt)))
        << dt;
  }
}

// --- the Highway path: every SIMD target ------------------------------------------------------------

class CoreElementwiseSimd : public testing::SimdTargetTest {};

const std::vector<UnaryOp> kVectorForward = {unary_op<op::Exp>,      unary_op<op::Log>,        unary_op<op::Tanh>,
                                             unary_op<op::Sigmoid>,  unary_op<op::Softplus>,   unary_op<op::LogSigmoid>,
                                             unary_op<op::Elu>,      unary_op<op::EluFeature>, unary_op<op::Gelu>};
const std::vector<UnaryOp> kVectorBackward = {unary_op<op::Softplus>, unary_op<op::LogSigmoid>, unary_op<op::Gelu>,
                                              unary_op<op::EluFeature>};

TEST_P(CoreElementwiseSimd, TranscendentalOpsHaveVectorForms) {
  // A vector form that stops being found would silently fall back to the scalar loop: fail here instead.
  for (UnaryOp o : kVectorForward) EXPECT_TRUE(kernels::cpu::unary_has_vector_form(o)) << name(o);
  for (UnaryOp o : kVectorBackward) EXPECT_TRUE(kernels::cpu::unary_backward_has_vector_form(o)) << name(o);
  EXPECT_FALSE(kernels::cpu::unary_has_vector_form(unary_op<op::Neg>));  // GCC vectorises it as it is
  EXPECT_FALSE(kernels::cpu::unary_backward_has_vector_form(unary_op<op::Tanh>));
}

TEST_P(CoreElementwiseSimd, VectorFormsMatchReference) {
  Generator gen(19);
  const std::vector<Shape> shapes = {{3, 5, 7}, {1, 13}, {17}, {67}, {3, 1000}, {70001}};  // the last: OpenMP
  for (const UnaryCase& c : kUnary) {
    const bool fwd = kernels::cpu::unary_has_vector_form(c.op), bwd = kernels::cpu::unary_backward_has_vector_form(c.op);
    if (!fwd && !bwd) continue;
    const op::Saves saves = kernels::backward_saves(c.op);
    for (const Shape& s : shapes) {
      Tensor x = make_input(s, DType::f32, Layout::contiguous, gen, c.lo, c.hi);
      Tensor y = ops::unary(c.op, x, c.a, c.b);
      if (fwd) {
        EXPECT_TRUE(close_to(y, reference::unary(c.op, x, c.a, c.b), tol_for(DType::f32))) << label(c);
      }
      if (!bwd) continue;
      Tensor g = make_input(s, DType::f32, Layout::contiguous, gen, -2, 2);
      Tensor got = ops::unary_backward(c.op, g, op::saves_x(saves) ? x : Tensor(), op::saves_y(saves) ? y : Tensor(),
                                       c.a, c.b);
      EXPECT_TRUE(close_to(got, reference::unary_backward(c.op, g, x, c.a, c.b), tol_for(DType::f32)))
          << label(c) << " backward";
    }
  }
}

TEST_P(CoreElementwiseSimd, VectorFormsAreTotal) {
  // Highway's own Exp maps NaN to 0 and wraps above its valid range; log of 0 and of subnormals,
  // tanh and the stable softplus / log σ at ±inf: every value must be the oracle's (NaN for NaN),
  // except where the oracle's literal log(1 + eˣ) overflows and softplus(x) = x, log σ(−x) = −x exactly.
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> values = {-inf, -1e4f, -200, -103.9f, -87.5f, -20, -1, -1e-3f, 0, 1e-3f, 1e-30f, 1e-40f,
                                     1,    20,     88.7f, 88.8f, 200,    1e4f, 3e38f, inf, nan};
  for (UnaryOp o : kVectorForward) {
    const double a = o == unary_op<op::Elu> ? 1.3 : 0;
    Tensor x = Tensor::from_vector(values, {int64_t(values.size())});
    const std::vector<float> got = ops::unary(o, x, a).to_vector<float>();
    const std::vector<double> want = reference::unary(o, x, a).to_vector<double>();
    for (size_t i = 0; i < values.size(); ++i) {
      const float w = float(want[i]);
      const std::string what = fmt::format("{}({}) = {}, expected {}", name(o), values[i], got[i], w);
      const bool stable = o == unary_op<op::Softplus> || o == unary_op<op::LogSigmoid>;
      if (std::isnan(w)) EXPECT_TRUE(std::isnan(got[i])) << what;
      else if (std::isinf(w) && stable && std::isfinite(values[i])) EXPECT_EQ(got[i], values[i]) << what;
      else if (std::isinf(w)) EXPECT_EQ(got[i], w) << what;
      else EXPECT_LE(std::abs(double(got[i]) - w), 1e-6 + 1e-5 * std::abs(w)) << what;
    }
  }
}

// gelu computes Φ as erfc(−x/√2)/2 on both paths (the vector form: cpu/vec_math-inl.h normal_cdf_v, 5.9e-7
// relative; the scalar loop: scalar_ops.h through erfcf), so the left tail, where x·(1 + erf(x/√2))/2
// would cancel to nothing (0 % accurate at x = −5 in float32), keeps its relative accuracy: the vector
// form within 2e-6 on [−12, 12]; the scalar loop (a strided input) within 5e-6 on [−6, 6] (its
// argument x/√2 is rounded before erfc, costing up to 2z² ulp). Values under 1e-35 are skipped.
TEST_P(CoreElementwiseSimd, GeluKeepsItsRelativeAccuracyInTheLeftTail) {
  const auto check = [](const Tensor& x, double rtol, const char* path) {
    const std::vector<float> got = ops::gelu(x).to_vector<float>();
    const std::vector<float> in = x.contiguous().to_vector<float>();
    int checked = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      const double want = 0.5 * double(in[i]) * std::erfc(-double(in[i]) / std::sqrt(2.0));
      if (std::abs(want) < 1e-35) continue;
      ++checked;
      EXPECT_LE(std::abs(double(got[i]) - want), rtol * std::abs(want)) << path << ": gelu(" << in[i] << ")";
    }
    EXPECT_GT(checked, 1000) << path;
  };
  std::vector<float> wide;
  for (int i = -1200; i <= 1200; ++i) wide.push_back(float(i) / 100.0f);
  check(Tensor::from_vector(wide, {int64_t(wide.size())}), 2e-6, "vector form");
  std::vector<float> spaced;  // every other element is the input: a strided view, the scalar loop
  for (int i = -600; i <= 600; ++i) spaced.insert(spaced.end(), {float(i) / 100.0f, 0.0f});
  const Tensor strided = Tensor::from_vector(spaced, {int64_t(spaced.size())}).slice(0, 0, int64_t(spaced.size()), 2);
  ASSERT_FALSE(strided.is_contiguous());
  check(strided, 5e-6, "scalar loop");
}

// The float32 arithmetic binary ops on the Highway rows (cpu/binary_simd.cpp): every layout the rows
// take — both contiguous, a bias row broadcast over rows, a column broadcast along rows, a 0-d operand
// on either side — and a transposed (strided) operand, which takes the scalar loop; lengths with partial
// vectors and one above the parallel grain; NaN, ±inf and signed zeros. Each element must be the op's
// scalar formula on the same floats, bit for bit (the same IEEE operation on every target).
TEST_P(CoreElementwiseSimd, BinaryRowsGiveTheScalarFormulasBits) {
  Generator gen(23);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<std::pair<Shape, Shape>> layouts = {{{3, 37}, {3, 37}}, {{5, 19}, {19}},  {{5, 19}, {5, 1}},
                                                        {{4, 9}, {}},       {{}, {4, 9}},     {{1, 70001}, {70001}},
                                                        {{1}, {1}}};
  op::for_each(op::BinaryOps{}, [&]<class Op>() {
    if constexpr (kernels::cpu::binary_vector_code<Op>() >= 0) {
      for (const auto& [sa, sb] : layouts)
        for (const bool transposed : {false, true}) {
          Tensor a = Tensor::uniform(sa, gen, -3, 3), b = Tensor::uniform(sb, gen, -3, 3);
          if (a.numel() > 3) a.view({-1}).narrow(0, 0, 4).copy_(Tensor::from_vector(std::vector<float>{nan, inf, -0.0f, 0.0f}, {4}));
          if (b.numel() > 3) b.view({-1}).narrow(0, 0, 4).copy_(Tensor::from_vector(std::vector<float>{1, nan, 0.0f, -inf}, {4}));
          if (transposed && a.dim() == 2 && a.size(0) > 1) a = a.transpose(0, 1).contiguous().transpose(0, 1);
          const Tensor out = ops::binary(binary_op<Op>, a, b);
          const Shape os = out.shape();
          const std::vector<float> got = out.contiguous().to_vector<float>();
          const std::vector<float> av = a.expand(os).contiguous().to_vector<float>();
          const std::vector<float> bv = b.expand(os).contiguous().to_vector<float>();
          for (size_t i = 0; i < got.size(); ++i) {
            const float want = Op::fast(av[i], bv[i]);
            const bool same = std::isnan(want) ? std::isnan(got[i]) : std::memcmp(&want, &got[i], 4) == 0;
            ASSERT_TRUE(same) << Op::name << "(" << av[i] << ", " << bv[i] << ") = " << got[i] << ", expected "
                              << want << " (a " << shape_str(sa) << ", b " << shape_str(sb)
                              << (transposed ? ", a strided" : "") << ", element " << i << ")";
          }
        }
    }
  });
}

LINTRA_ON_EVERY_SIMD_TARGET(CoreElementwiseSimd);

// --- int64 ------------------------------------------------------------------------------------------

TEST(CoreElementwise, UnaryOnInt64IsExactWhereDefined) {
  Generator gen(12);
  const std::vector<UnaryCase> params = {{unary_op<op::AddScalar>, 0, 0, 7},
                                         {unary_op<op::MulScalar>, 0, 0, -3},
                                         {unary_op<op::RsubScalar>, 0, 0, 5},
                                         {unary_op<op::Clamp>, 0, 0, -4, 9}};
  Tensor base = ops::randint({5, 7}, -50, 50, gen);
  op::for_each(op::UnaryOps{}, [&]<class Op>() {
    if constexpr (!op::on_int64<Op>) {
      EXPECT_THROW(ops::unary<Op>(base, 1.0, 2.0), Error) << Op::name << " is not defined on int64";
    } else {
      UnaryCase c{unary_op<Op>, 0, 0};
      for (const UnaryCase& p : params)
        if (p.op == c.op) c = p;
      for (const Tensor& x : {base, base.transpose(0, 1), base.slice(1, 0, 7, 3)}) {
        Tensor got = ops::unary(c.op, x, c.a, c.b);
        ASSERT_EQ(got.dtype(), DType::i64);
        EXPECT_TRUE(equal_to(got, reference::unary(c.op, x, c.a, c.b))) << label(c);
      }
    }
  });
}

// --- binary ------------------------------------------------------------------------------------

struct BinaryCase {
  BinaryOp op;
  double alo, ahi, blo, bhi;
  bool integer_valued = false;  // draw small integers so that equality ties occur
};
const std::vector<BinaryCase> kBinary = {
    {binary_op<op::Add>, -3, 3, -3, 3},
    {binary_op<op::Sub>, -3, 3, -3, 3},
    {binary_op<op::Mul>, -3, 3, -3, 3},
    {binary_op<op::Div>, -3, 3, 0.5, 2},
    {binary_op<op::Pow>, 0.1, 3, -2, 2},
    {binary_op<op::Maximum>, -3, 3, -3, 3, true},
    {binary_op<op::Minimum>, -3, 3, -3, 3, true},
    {binary_op<op::Eq>, -3, 3, -3, 3, true},
    {binary_op<op::Ne>, -3, 3, -3, 3, true},
    {binary_op<op::Lt>, -3, 3, -3, 3, true},
    {binary_op<op::Le>, -3, 3, -3, 3, true},
    {binary_op<op::Gt>, -3, 3, -3, 3, true},
    {binary_op<op::Ge>, -3, 3, -3, 3, true},
};

TEST(CoreElementwise, EveryBinaryOpHasACase) {
  op::for_each(op::BinaryOps{}, [&]<class Op>() {
    const bool found =
        std::any_of(kBinary.begin(), kBinary.end(), [](const BinaryCase& c) { return c.op == binary_op<Op>; });
    EXPECT_TRUE(found) << Op::name << " has no case in kBinary";
  });
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

TEST(CoreElementwise, BinaryMatchesReferenceWithBroadcasting) {
  Generator gen(13);
  for (const BinaryCase& c : kBinary)
    for (DType dt : kFloat)
      for (const auto& [sa, sb] : kPairs)
        for (const auto& [la, lb] : kLayoutPairs) {
          Tensor a = draw(sa, dt, la, gen, c.alo, c.ahi, c.integer_valued);
          Tensor b = draw(sb, dt, lb, gen, c.blo, c.bhi, c.integer_valued);
          Tensor got = ops::binary(c.op, a, b);
          Tensor want = reference::binary(c.op, a, b);
          const bool cmp = kernels::is_comparison(c.op);
          ASSERT_EQ(got.dtype(), cmp ? kBool : dt) << name(c.op);
          std::string what = fmt::format("{}: a {} {}, b {} {}, {}", name(c.op), shape_str(sa),
                                         testing::layout_name(la), shape_str(sb), testing::layout_name(lb), dt);
          if (cmp) {
            EXPECT_TRUE(equal_to(got, want)) << what;
          } else {
            EXPECT_TRUE(close_to(got, want, tol_for(dt))) << what;
          }
        }
}

// On int64 the reference's float64 result, truncated toward zero as a cast does, is exact (integer
// division truncates too); ops not defined on integers throw.
TEST(CoreElementwise, BinaryOnInt64IsExactWhereDefined) {
  Generator gen(18);
  Tensor a = ops::randint({5, 7}, -50, 50, gen), b = ops::randint({7}, 1, 9, gen);
  op::for_each(op::BinaryOps{}, [&]<class Op>() {
    if constexpr (!op::binary_defined_on<Op, int64_t>) {
      EXPECT_THROW(ops::binary<Op>(a, b), Error) << Op::name << " is not defined on int64";
    } else {
      for (const Tensor& x : {a, a.transpose(0, 1).contiguous().transpose(0, 1)}) {
        Tensor got = ops::binary<Op>(x, b);
        Tensor want = reference::binary(binary_op<Op>, x, b);
        EXPECT_TRUE(equal_to(got, op::is_comparison<Op> ? want : want.to(DType::i64))) << Op::name;
      }
    }
  });
}

// add_ sums into its first operand, which it alone writes (the SIMD rows read each element before they
// store it), broadcasting the second; a second operand that does not fit is an error naming both shapes.
TEST(CoreElementwise, AddInPlaceEqualsAddAndRejectsAShapeThatDoesNotBroadcast) {
  Generator gen(23);
  for (const Shape& sb : {Shape{5, 70001}, Shape{70001}, Shape{1, 1}}) {
    Tensor a = Tensor::normal({5, 70001}, gen), b = Tensor::normal(sb, gen);
    const Tensor want = ops::add(a, b);
    const uint64_t version = a.version();
    ops::add_(a, b);
    EXPECT_TRUE(equal_to(a, want)) << shape_str(sb);
    EXPECT_GT(a.version(), version);
  }
  Tensor a = Tensor::zeros({3}), b = Tensor::zeros({2, 3});
  try {
    ops::add_(a, b);
    ADD_FAILURE() << "add_ accepted [2, 3] into [3]";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("[2, 3] does not broadcast to [3]"), std::string::npos) << e.what();
  }
}

TEST(CoreElementwise, MaximumMinimumPropagateNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor a = Tensor::from_vector(std::vector<double>{nan, 1.0, nan}, {3});
  Tensor b = Tensor::from_vector(std::vector<double>{2.0, nan, nan}, {3});
  for (BinaryOp op : {binary_op<op::Maximum>, binary_op<op::Minimum>}) {
    EXPECT_TRUE(close_to(ops::binary(op, a, b), reference::binary(op, a, b), tol_for(DType::f64))) << name(op);
    EXPECT_FALSE(ops::all_finite(ops::binary(op, a, b))) << name(op);
  }
}

TEST(CoreElementwise, ComparisonsSeeTies) {
  // Guards the test above: integer-valued draws really produce equal pairs.
  Generator gen(14);
  Tensor a = draw({3, 5, 7}, DType::f32, Layout::permuted, gen, -3, 3, true);
  Tensor b = draw({3, 5, 7}, DType::f32, Layout::strided, gen, -3, 3, true);
  EXPECT_GT(ops::sum(ops::eq(a, b)).item(), 0);
}

TEST(CoreElementwise, ScalarComparisonsMatchTensorOnes) {
  Generator gen(19);
  Tensor x = draw({4, 6}, DType::f32, Layout::permuted, gen, -3, 3, true);
  Tensor zero = Tensor::scalar(0.0, DType::f32);
  EXPECT_TRUE(equal_to(ops::eq(x, 0.0), ops::eq(x, zero)));
  EXPECT_TRUE(equal_to(ops::ne(x, 0.0), ops::ne(x, zero)));
  EXPECT_TRUE(equal_to(ops::lt(x, 0.0), ops::lt(x, zero)));
  EXPECT_TRUE(equal_to(ops::le(x, 0.0), ops::le(x, zero)));
  EXPECT_TRUE(equal_to(ops::gt(x, 0.0), ops::gt(x, zero)));
  EXPECT_TRUE(equal_to(ops::ge(x, 0.0), ops::ge(x, zero)));
}

TEST(CoreElementwise, WhereSelectsWithBroadcasting) {
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
          binary_op<op::Add>, reference::binary(binary_op<op::Mul>, c, a),
          reference::binary(binary_op<op::Mul>, reference::unary(unary_op<op::RsubScalar>, c, 1.0), b));
      EXPECT_TRUE(equal_to(got, want)) << dt << " " << testing::layout_name(la) << "/" << testing::layout_name(lb);
      EXPECT_TRUE(equal_to(ops::masked_fill(a, cond, 2.5),
                           ops::where(cond, Tensor::full({}, 2.5, dt), a)));
    }
}

TEST(CoreElementwise, CopyCastsAndBroadcastsIntoStridedDestinations) {
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
