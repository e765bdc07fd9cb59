// test_gradcheck_linalg.cpp — invariant: the backward of matmul (2-D, batched, broadcast batch on
// either side, 1-d operands, transposed operands as views) and of linear (with and without bias,
// 2-d and 3-d input) agrees with central finite differences (gradcheck, float64) for every operand.
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
  // The result equals x·Wᵀ + b.
  Var x(rnd({2, 3, 4}, gen)), wv(w), bv(b);
  Tensor want = ops::add(ops::matmul(x.data(), w.transpose(0, 1)), b);
  EXPECT_EQ(ops::max_abs_diff(linear(x, wv, bv).data(), want), 0);  // the same kernels in the same order
}

}  // namespace
}  // namespace lintra
