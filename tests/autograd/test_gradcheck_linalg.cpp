// test_gradcheck_linalg.cpp — invariant: the backward of matmul (2-D, batched, broadcast batch on
// either side, 1-d operands, transposed operands as views), of addmm (c + a·b, c a bias, a residual or
// broadcasting over batch dims) and of linear (with and without bias, 1-d, 2-d and 3-d input) agrees
// with central finite differences (gradcheck, float64) for every operand.
// Tolerances: gradcheck's defaults, justified in autograd_test_util.h.
#include <gtest/gtest.h>

#include "tests/autograd/autograd_test_util.h"

namespace lintra {
namespace {

using testing::gradcheck_ok;
using testing::rnd;

struct MatmulCase {
  Shape a, b;
};
const std::vector<MatmulCase> kCases = {
    {{3, 4}, {4, 2}},           // 2-D
    {{2, 3, 4}, {2, 4, 2}},     // batched
    {{2, 1, 3, 4}, {3, 4, 2}},  // broadcast batch on both sides
    {{3, 4}, {2, 4, 2}},        // a shared across b's batch
    {{2, 3, 4}, {4, 2}},        // b shared: its gradient is one GEMM over all rows
    {{2, 2, 3, 4}, {4, 2}},     // the same with two batch dims
    {{4}, {4, 2}},              // 1-d a: a row
    {{3, 4}, {4}},              // 1-d b: a column
    {{2, 3, 4}, {4}},           // batched with 1-d b
    {{4}, {2, 4, 3}},           // 1-d a with batched b
    {{4}, {4}},                 // dot product: a 0-d result
};

TEST(AutogradGradcheckLinalg, MatmulShapes) {
  Generator gen(141);
  for (const MatmulCase& c : kCases) {
    Tensor a = rnd(c.a, gen), b = rnd(c.b, gen);
    EXPECT_TRUE(gradcheck_ok([](const std::vector<Var>& v) { return matmul(v[0], v[1]); }, {a, b}))
        << shape_str(c.a) << " · " << shape_str(c.b);
  }
}

TEST(AutogradGradcheckLinalg, MatmulOfTransposedViews) {
  Generator gen(142);
  Tensor at = rnd({2, 4, 3}, gen), bt = rnd({2, 2, 4}, gen);  // a = atᵀ (2, 3, 4), b = btᵀ (2, 4, 2)
  EXPECT_TRUE(gradcheck_ok(
      [](const std::vector<Var>& v) { return matmul(transpose(v[0], -1, -2), transpose(v[1], -1, -2)); }, {at, bt}));
  Tensor a = rnd({2, 3, 4}, gen), w = rnd({2, 4}, gen);  // x · Wᵀ with a shared transposed weight
  EXPECT_TRUE(gradcheck_ok([](const std::vector<Var>& v) { return matmul(v[0], transpose(v[1], 0, 1)); }, {a, w}));
  Tensor s = rnd({3, 8}, gen), t = rnd({4, 2}, gen);  // a step-sliced a: copied before the GEMM
  EXPECT_TRUE(gradcheck_ok([](const std::vector<Var>& v) { return matmul(slice(v[0], 1, 0, 8, 2), v[1]); }, {s, t}));
  // The same operand on both sides: its gradients from the two uses add.
  Tensor m = rnd({3, 3}, gen);
  EXPECT_TRUE(gradcheck_ok([](const std::vector<Var>& v) { return matmul(v[0], transpose(v[0], 0, 1)); }, {m}));
}

TEST(AutogradGradcheckLinalg, Addmm) {
  Generator gen(144);
  struct Case {
    Shape c, a, b;
  };
  const std::vector<Case> cases = {
      {{2}, {3, 4}, {4, 2}},           // a bias
      {{3, 2}, {3, 4}, {4, 2}},        // a residual of the product's shape
      {{1, 2}, {3, 4}, {4, 2}},        // broadcast over rows
      {{2}, {2, 3, 4}, {4, 2}},        // a bias on a batched product (b shared)
      {{3, 1}, {2, 3, 4}, {2, 4, 2}},  // broadcast over the batch and the columns
      {{2, 3, 2}, {2, 3, 4}, {4, 2}},  // a batched residual
  };
  for (const Case& c : cases) {
    Tensor cv = rnd(c.c, gen), a = rnd(c.a, gen), b = rnd(c.b, gen);
    EXPECT_TRUE(gradcheck_ok([](const std::vector<Var>& v) { return addmm(v[0], v[1], v[2]); }, {cv, a, b}))
        << shape_str(c.c) << " + " << shape_str(c.a) << " · " << shape_str(c.b);
  }
  // Through a transposed view of b, as linear calls it.
  Tensor bias = rnd({5}, gen), x = rnd({3, 4}, gen), w = rnd({5, 4}, gen);
  EXPECT_TRUE(gradcheck_ok([](const std::vector<Var>& v) { return addmm(v[0], v[1], transpose(v[2], 0, 1)); },
                           {bias, x, w}));
}

TEST(AutogradGradcheckLinalg, Linear) {
  Generator gen(143);
  Tensor w = rnd({5, 4}, gen), b = rnd({5}, gen);
  for (const Shape& xs : {Shape{3, 4}, Shape{2, 3, 4}, Shape{4}}) {
    Tensor x = rnd(xs, gen);
    EXPECT_TRUE(gradcheck_ok([](const std::vector<Var>& v) { return linear(v[0], v[1], v[2]); }, {x, w, b}))
        << shape_str(xs) << " with bias";
    EXPECT_TRUE(gradcheck_ok([](const std::vector<Var>& v) { return linear(v[0], v[1]); }, {x, w}))
        << shape_str(xs) << " without bias";
  }
  // The result is x·Wᵀ + b with the bias written where the GEMM accumulates: bit for bit ops::addmm,
  // and the product plus the bias up to the order of rounding (float64 sums of 4 terms near 1).
  Var x(rnd({2, 3, 4}, gen)), wv(w), bv(b);
  const Tensor y = linear(x, wv, bv).data();
  EXPECT_EQ(ops::max_abs_diff(y, ops::addmm(b, x.data(), w.transpose(0, 1))), 0);
  EXPECT_LT(ops::max_abs_diff(y, ops::add(ops::matmul(x.data(), w.transpose(0, 1)), b)), 1e-14);
}

}  // namespace
}  // namespace lintra
