// test_gradcheck_elementwise.cpp — invariant: the backward of every elementwise differentiable op
// (autograd/ops/elementwise.cpp; the unary ones run their formula from core/unary_ops.h) agrees with
// central finite differences (gradcheck, float64) at several small shapes, on contiguous and
// non-contiguous inputs (transposed, step-sliced and expanded inside the function), and for binary ops
// under broadcasting on either side. Every unary op of the list that has a backward is checked through
// the generic node (its case table must name each), and that node saves only what the op reads.
// Inputs lie inside each op's domain and away from its kinks (abs, relu, elu at 0; clamp's bounds;
// max/min ties).
// Tolerances: gradcheck's defaults, justified in autograd_test_util.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "tests/autograd/autograd_test_util.h"

namespace lintra {
namespace {

using testing::gradcheck_ok;
using testing::rnd;
using testing::rnd_away;

struct UnaryCase {
  const char* name;
  std::function<Var(const Var&)> f;
  double lo, hi;
  std::vector<double> kinks = {};
};

const std::vector<UnaryCase> kUnary = {
    {"neg", [](const Var& x) { return neg(x); }, -2, 2},
    {"operator-", [](const Var& x) { return -x; }, -2, 2},
    {"exp", [](const Var& x) { return exp(x); }, -2, 2},
    {"log", [](const Var& x) { return log(x); }, 0.2, 3},
    {"log1p", [](const Var& x) { return log1p(x); }, -0.5, 3},
    {"sqrt", [](const Var& x) { return sqrt(x); }, 0.2, 3},
    {"rsqrt", [](const Var& x) { return rsqrt(x); }, 0.2, 3},
    {"abs", [](const Var& x) { return abs(x); }, -2, 2, {0}},
    {"square", [](const Var& x) { return square(x); }, -2, 2},
    {"tanh", [](const Var& x) { return tanh(x); }, -2, 2},
    {"sigmoid", [](const Var& x) { return sigmoid(x); }, -3, 3},
    {"log_sigmoid", [](const Var& x) { return log_sigmoid(x); }, -4, 4},
    {"relu", [](const Var& x) { return relu(x); }, -2, 2, {0}},
    {"elu(1)", [](const Var& x) { return elu(x); }, -2, 2, {0}},
    {"elu(1.3)", [](const Var& x) { return elu(x, 1.3); }, -2, 2, {0}},
    {"gelu", [](const Var& x) { return gelu(x); }, -3, 3},
    {"softplus", [](const Var& x) { return softplus(x); }, -3, 3},
    {"clamp", [](const Var& x) { return clamp(x, -0.5, 0.7); }, -2, 2, {-0.5, 0.7}},
    {"pow(x, 3)", [](const Var& x) { return pow(x, 3.0); }, -2, 2},
    {"pow(x, 2)", [](const Var& x) { return pow(x, 2.0); }, -2, 2},
    {"pow(x, 0.5)", [](const Var& x) { return pow(x, 0.5); }, 0.2, 3},
    {"pow(x, -1.5)", [](const Var& x) { return pow(x, -1.5); }, 0.2, 3},
    {"add scalar", [](const Var& x) { return add(x, 0.75); }, -2, 2},
    {"mul scalar", [](const Var& x) { return mul(x, -1.5); }, -2, 2},
    {"x + s, s + x", [](const Var& x) { return (x + 0.5) * (2.0 + x); }, -2, 2},
    {"x - s, s - x", [](const Var& x) { return (x - 0.5) * (2.0 - x); }, -2, 2},
    {"x * s, s * x, x / s", [](const Var& x) { return (x * 3.0) + (0.5 * x) + (x / 4.0); }, -2, 2},
};

TEST(AutogradGradcheckElementwise, UnaryOpsAtSeveralShapes) {
  Generator gen(101);
  for (const UnaryCase& c : kUnary)
    for (const Shape& s : {Shape{5}, Shape{2, 3}, Shape{3, 1, 2}, Shape{}}) {
      Tensor x = rnd_away(s, gen, c.kinks, c.lo, c.hi);
      EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return c.f(v[0]); }, {x})) << c.name << " "
                                                                                             << shape_str(s);
    }
}

TEST(AutogradGradcheckElementwise, UnaryOpsOnNonContiguousInputs) {
  Generator gen(102);
  for (const UnaryCase& c : kUnary) {
    Tensor x = rnd_away({3, 4}, gen, c.kinks, c.lo, c.hi);
    EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return c.f(transpose(v[0], 0, 1)); }, {x}))
        << c.name << " transposed";
    EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return c.f(slice(v[0], 1, 0, 4, 2)); }, {x}))
        << c.name << " step slice";
    Tensor r = rnd_away({1, 3}, gen, c.kinks, c.lo, c.hi);
    EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return c.f(expand(v[0], {2, 4, 3})); }, {r}))
        << c.name << " expanded";
  }
}

// Every unary op of the list with a backward, through autograd's generic node unary(op, x, a, b).
struct OpCase {
  kernels::UnaryOp op;
  double lo, hi;
  double a = 0, b = 0;
  std::vector<double> kinks = {};
};
using kernels::unary_op;
const std::vector<OpCase> kOps = {
    {unary_op<op::Neg>, -2, 2},
    {unary_op<op::Exp>, -2, 2},
    {unary_op<op::Log>, 0.2, 3},
    {unary_op<op::Log1p>, -0.5, 3},
    {unary_op<op::Sqrt>, 0.2, 3},
    {unary_op<op::Rsqrt>, 0.2, 3},
    {unary_op<op::Abs>, -2, 2, 0, 0, {0}},
    {unary_op<op::Square>, -2, 2},
    {unary_op<op::Tanh>, -2, 2},
    {unary_op<op::Sigmoid>, -3, 3},
    {unary_op<op::Relu>, -2, 2, 0, 0, {0}},
    {unary_op<op::Gelu>, -3, 3},
    {unary_op<op::Softplus>, -3, 3},
    {unary_op<op::Elu>, -2, 2, 0.7, 0, {0}},
    {unary_op<op::EluFeature>, -2, 2, 0, 0, {0}},
    {unary_op<op::PowScalar>, 0.2, 3, 2.5},
    {unary_op<op::Clamp>, -2, 2, -0.5, 0.7, {-0.5, 0.7}},
    {unary_op<op::AddScalar>, -2, 2, 0.75},
    {unary_op<op::MulScalar>, -2, 2, -1.5},
    {unary_op<op::RsubScalar>, -2, 2, 2.0},
    {unary_op<op::LogSigmoid>, -4, 4},
};

TEST(AutogradGradcheckElementwise, EveryUnaryOpWithABackwardHasACase) {
  op::for_each(op::UnaryOps{}, [&]<class Op>() {
    if constexpr (op::has_backward<Op>) {
      const bool found = std::any_of(kOps.begin(), kOps.end(), [](const OpCase& c) { return c.op == unary_op<Op>; });
      EXPECT_TRUE(found) << Op::name << " has no case in kOps";
    }
  });
}

TEST(AutogradGradcheckElementwise, EveryUnaryOpThroughTheGenericNode) {
  Generator gen(107);
  for (const OpCase& c : kOps)
    for (const Shape& s : {Shape{5}, Shape{2, 3}, Shape{}}) {
      Tensor x = rnd_away(s, gen, c.kinks, c.lo, c.hi);
      EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return unary(c.op, v[0], c.a, c.b); }, {x}))
          << name(c.op) << " " << shape_str(s);
    }
}

TEST(AutogradGradcheckElementwise, UnaryNodesSaveOnlyWhatTheBackwardReads) {
  Generator gen(108);
  for (const OpCase& c : kOps) {
    Var x(rnd_away({2, 3}, gen, c.kinks, c.lo, c.hi), true);
    Var y = unary(c.op, x, c.a, c.b);
    ASSERT_TRUE(y.grad_fn()) << name(c.op);
    EXPECT_EQ(y.grad_fn()->name, name(c.op));
    const op::Saves saves = kernels::backward_saves(c.op);
    const std::vector<SavedTensor>& saved = y.grad_fn()->saved;
    ASSERT_EQ(saved.size(), size_t(op::saves_x(saves)) + size_t(op::saves_y(saves))) << name(c.op);
    if (op::saves_x(saves)) {
      EXPECT_TRUE(saved.front().tensor.shares_storage_with(x.data())) << name(c.op);
    }
    if (op::saves_y(saves)) {
      EXPECT_TRUE(saved.back().tensor.shares_storage_with(y.data())) << name(c.op);
    }
  }
}

struct BinaryCase {
  const char* name;
  std::function<Var(const Var&, const Var&)> f;
  double alo, ahi, blo, bhi;
};

const std::vector<BinaryCase> kBinary = {
    {"add", [](const Var& a, const Var& b) { return add(a, b); }, -2, 2, -2, 2},
    {"sub", [](const Var& a, const Var& b) { return sub(a, b); }, -2, 2, -2, 2},
    {"mul", [](const Var& a, const Var& b) { return mul(a, b); }, -2, 2, -2, 2},
    {"div", [](const Var& a, const Var& b) { return div(a, b); }, -2, 2, 0.5, 2},
    {"pow", [](const Var& a, const Var& b) { return pow(a, b); }, 0.5, 2, -1.5, 1.5},
    {"operators", [](const Var& a, const Var& b) { return (a + b) * (a - b) / (b * b + 1.0); }, -2, 2, -2, 2},
};

const std::vector<std::pair<Shape, Shape>> kPairs = {
    {{2, 3}, {2, 3}}, {{2, 3}, {3}}, {{2, 1, 3}, {4, 1}}, {{3}, {}}, {{}, {2, 2}}, {{1, 3}, {2, 1}},
};

TEST(AutogradGradcheckElementwise, BinaryOpsWithBroadcasting) {
  Generator gen(103);
  for (const BinaryCase& c : kBinary)
    for (const auto& [sa, sb] : kPairs) {
      Tensor a = rnd(sa, gen, c.alo, c.ahi), b = rnd(sb, gen, c.blo, c.bhi);
      EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return c.f(v[0], v[1]); }, {a, b}))
          << c.name << " " << shape_str(sa) << " " << shape_str(sb);
    }
}

TEST(AutogradGradcheckElementwise, BinaryOpsOnNonContiguousInputs) {
  Generator gen(104);
  for (const BinaryCase& c : kBinary) {
    Tensor a = rnd({3, 2}, gen, c.alo, c.ahi), b = rnd({2, 6}, gen, c.blo, c.bhi);
    // a transposed (2, 3) against b step-sliced (2, 3).
    EXPECT_TRUE(gradcheck_ok(
        [&](const std::vector<Var>& v) { return c.f(transpose(v[0], 0, 1), slice(v[1], 1, 0, 6, 2)); }, {a, b}))
        << c.name;
    // Both expanded from a row and a column.
    Tensor r = rnd({1, 3}, gen, c.alo, c.ahi), col = rnd({2, 1}, gen, c.blo, c.bhi);
    EXPECT_TRUE(gradcheck_ok(
        [&](const std::vector<Var>& v) { return c.f(expand(v[0], {2, 3}), expand(v[1], {2, 3})); }, {r, col}))
        << c.name << " expanded";
  }
}

// Values on the grid 0.2·k + offset plus noise below 0.02: an a drawn with offset 0 and a b drawn
// with offset 0.1 differ by at least 0.06 everywhere, whatever broadcasting pairs them.
Tensor on_grid(const Shape& s, Generator& gen, double offset) {
  return ops::add(ops::add(ops::mul(ops::randint(s, -10, 10, gen).to(DType::f64), 0.2), rnd(s, gen, 0, 0.02)), offset);
}

TEST(AutogradGradcheckElementwise, MaximumMinimumAwayFromTies) {
  Generator gen(105);
  for (const auto& [sa, sb] : kPairs) {
    Tensor a = on_grid(sa, gen, 0), b = on_grid(sb, gen, 0.1);
    EXPECT_TRUE(gradcheck_ok([](const std::vector<Var>& v) { return maximum(v[0], v[1]); }, {a, b}))
        << shape_str(sa) << " " << shape_str(sb);
    EXPECT_TRUE(gradcheck_ok([](const std::vector<Var>& v) { return minimum(v[0], v[1]); }, {a, b}))
        << shape_str(sa) << " " << shape_str(sb);
  }
  // Non-contiguous: a transposed input against a step slice.
  Tensor a = on_grid({3, 2}, gen, 0), b = on_grid({2, 6}, gen, 0.1);
  for (bool is_max : {true, false})
    EXPECT_TRUE(gradcheck_ok(
        [&](const std::vector<Var>& v) {
          Var x = transpose(v[0], 0, 1), y = slice(v[1], 1, 1, 6, 2);
          return is_max ? maximum(x, y) : minimum(x, y);
        },
        {a, b}));
}

TEST(AutogradGradcheckElementwise, MaximumSplitsTiesEvenly) {
  // At a tie the gradient is split ½/½ (documented in functional.h); finite differences cannot see
  // this, so check it directly.
  Var a(Tensor::from_vector({1.f, 2.f}, {2}), true), b(Tensor::from_vector({1.f, 3.f}, {2}), true);
  sum(maximum(a, b)).backward();
  EXPECT_EQ(a.grad().to_vector<float>(), (std::vector<float>{0.5f, 0.f}));
  EXPECT_EQ(b.grad().to_vector<float>(), (std::vector<float>{0.5f, 1.f}));
}

TEST(AutogradGradcheckElementwise, WhereAndMaskedFill) {
  Generator gen(106);
  Tensor cond = ops::bernoulli({2, 1, 3}, 0.5, gen, kBool);
  Tensor a = rnd({4, 3}, gen), b = rnd({2, 4, 1}, gen);
  EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return where(cond, v[0], v[1]); }, {a, b}));
  Tensor at = rnd({3, 4}, gen);  // used transposed
  EXPECT_TRUE(gradcheck_ok(
      [&](const std::vector<Var>& v) { return where(cond.expand({2, 4, 3}), exp(transpose(v[0], 0, 1)), v[1]); },
      {at, b}));
  Tensor mask = ops::bernoulli({3, 4}, 0.4, gen, kBool);
  Tensor x = rnd({4, 3}, gen);
  EXPECT_TRUE(gradcheck_ok(
      [&](const std::vector<Var>& v) { return masked_fill(transpose(v[0], 0, 1), mask, -2.5); }, {x}));
  EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return masked_fill(v[0], mask.select(1, 0), 1.0); }, {x}));
}

}  // namespace
}  // namespace lintra
