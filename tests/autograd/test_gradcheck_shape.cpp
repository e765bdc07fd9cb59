// test_gradcheck_shape.cpp — invariant: the backward of every differentiable shape op (reshape,
// flatten, permute, transpose, squeeze, unsqueeze, expand, slice, narrow, select, contiguous, cat,
// stack, split, chunk, pad, repeat) agrees with central finite differences (gradcheck, float64),
// including views of views, non-contiguous inputs and the copy path of reshape. Each function ends
// in a nonlinearity or a weighting where useful, so that a gradient routed to the wrong element
// changes the result. Tolerances: gradcheck's defaults, justified in autograd_test_util.h.
#include <gtest/gtest.h>

#include "tests/autograd/autograd_test_util.h"

namespace lintra {
namespace {

using testing::gradcheck_ok;
using testing::rnd;

// Multiplies by fixed distinct weights 1, 2, 3, … so that every output element counts differently.
Var ramp(const Var& y) {
  Tensor w = ops::add(Tensor::arange(y.numel(), DType::f64), 1.0).reshape(y.shape());
  return mul(y, Var(w));
}

struct ShapeCase {
  const char* name;
  Shape input;
  std::function<Var(const Var&)> f;
};

const std::vector<ShapeCase> kCases = {
    {"reshape", {2, 3, 4}, [](const Var& x) { return reshape(x, {6, 4}); }},
    {"reshape -1", {2, 3, 4}, [](const Var& x) { return reshape(x, {-1}); }},
    {"reshape of transpose (copies)", {2, 3, 4}, [](const Var& x) { return reshape(transpose(x, 0, 2), {4, 6}); }},
    {"flatten", {2, 3, 4}, [](const Var& x) { return flatten(x); }},
    {"flatten 1..2", {2, 3, 4}, [](const Var& x) { return flatten(x, 1, 2); }},
    {"flatten 0..1 of permute", {2, 3, 4}, [](const Var& x) { return flatten(permute(x, {2, 0, 1}), 0, 1); }},
    {"flatten of 0-d", {}, [](const Var& x) { return flatten(x); }},
    {"permute", {2, 3, 4}, [](const Var& x) { return permute(x, {2, 0, 1}); }},
    {"permute negative", {2, 3, 4}, [](const Var& x) { return permute(x, {-1, -3, -2}); }},
    {"transpose", {2, 3, 4}, [](const Var& x) { return transpose(x, 0, 2); }},
    {"transpose negative", {2, 3, 4}, [](const Var& x) { return transpose(x, -1, -2); }},
    {"squeeze", {3, 1, 2}, [](const Var& x) { return squeeze(x, 1); }},
    {"squeeze negative", {3, 2, 1}, [](const Var& x) { return squeeze(x, -1); }},
    {"unsqueeze", {3, 2}, [](const Var& x) { return unsqueeze(x, 1); }},
    {"unsqueeze last", {3, 2}, [](const Var& x) { return unsqueeze(x, -1); }},
    {"unsqueeze of transpose", {3, 2}, [](const Var& x) { return unsqueeze(transpose(x, 0, 1), 0); }},
    {"expand", {3, 1}, [](const Var& x) { return expand(x, {2, 3, 4}); }},
    {"expand -1", {1, 3}, [](const Var& x) { return expand(x, {4, -1}); }},
    {"slice", {5, 4}, [](const Var& x) { return slice(x, 0, 1, 4); }},
    {"slice step", {7, 4}, [](const Var& x) { return slice(x, 0, 1, 7, 3); }},
    {"slice negative bounds", {7, 4}, [](const Var& x) { return slice(x, 1, -3, -1); }},
    {"slice of slice", {7, 6}, [](const Var& x) { return slice(slice(x, 1, 0, 6, 2), 0, -5, 7, 2); }},
    {"narrow", {5, 4}, [](const Var& x) { return narrow(x, 1, 1, 2); }},
    {"select", {3, 4}, [](const Var& x) { return select(x, 0, 1); }},
    {"select negative", {3, 4}, [](const Var& x) { return select(x, 1, -1); }},
    {"select of transpose", {3, 4, 2}, [](const Var& x) { return select(transpose(x, 0, 2), 1, 2); }},
    {"contiguous", {3, 4}, [](const Var& x) { return contiguous(transpose(x, 0, 1)); }},
    {"pad", {2, 3}, [](const Var& x) { return pad(x, {1, 2}, 0.5); }},
    {"pad two dims", {2, 3}, [](const Var& x) { return pad(x, {0, 1, 2, 1}, -1.0); }},
    {"pad of transpose", {2, 3}, [](const Var& x) { return pad(transpose(x, 0, 1), {2, 0}); }},
    {"repeat", {2, 3}, [](const Var& x) { return repeat(x, {2, 2}); }},
    {"repeat new dims", {2, 3}, [](const Var& x) { return repeat(x, {3, 1, 2}); }},
    {"repeat of transpose", {2, 3}, [](const Var& x) { return repeat(transpose(x, 0, 1), {1, 3}); }},
};

TEST(AutogradGradcheckShape, EveryShapeOp) {
  Generator gen(121);
  for (const ShapeCase& c : kCases) {
    Tensor x = rnd(c.input, gen);
    EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return c.f(v[0]); }, {x})) << c.name;
    EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return square(ramp(c.f(v[0]))); }, {x}))
        << c.name << " (weighted, squared)";
  }
}

TEST(AutogradGradcheckShape, CatAndStack) {
  Generator gen(122);
  Tensor a = rnd({2, 3}, gen), b = rnd({2, 1}, gen), c = rnd({4, 2}, gen);
  // c enters transposed (2, 4): non-contiguous.
  EXPECT_TRUE(gradcheck_ok(
      [](const std::vector<Var>& v) { return ramp(cat({v[0], v[1], transpose(v[2], 0, 1)}, 1)); }, {a, b, c}));
  EXPECT_TRUE(gradcheck_ok(
      [](const std::vector<Var>& v) { return ramp(cat({v[0], transpose(v[1], 0, 1), v[0]}, -1)); }, {a, c}));
  Tensor d = rnd({1, 3}, gen);
  EXPECT_TRUE(gradcheck_ok([](const std::vector<Var>& v) { return ramp(cat({v[0], v[1]}, 0)); }, {a, d}));
  Tensor e = rnd({2, 3}, gen), f = rnd({3, 2}, gen);
  for (int64_t dim : {0, 1, 2, -1})
    EXPECT_TRUE(gradcheck_ok(
        [&](const std::vector<Var>& v) { return ramp(stack({v[0], transpose(v[1], 0, 1), v[0]}, dim)); }, {e, f}))
        << "stack dim " << dim;
}

TEST(AutogradGradcheckShape, SplitAndChunk) {
  Generator gen(123);
  Tensor x = rnd({5, 4}, gen);
  // Pieces recombined in another order with different weights: each piece's gradient is distinct.
  EXPECT_TRUE(gradcheck_ok(
      [](const std::vector<Var>& v) {
        std::vector<Var> p = split(v[0], {2, 0, 3}, 0);
        return cat({mul(p[2], 3.0), exp(p[0]), p[1]}, 0);
      },
      {x}));
  EXPECT_TRUE(gradcheck_ok(
      [](const std::vector<Var>& v) {
        std::vector<Var> p = split(transpose(v[0], 0, 1), {1, 3}, 0);  // of a non-contiguous input
        return cat({square(p[1]), p[0]}, 0);
      },
      {x}));
  EXPECT_TRUE(gradcheck_ok(
      [](const std::vector<Var>& v) {
        std::vector<Var> p = chunk(v[0], 3, 0);  // sizes 2, 2, 1
        return cat({p[1], mul(p[2], -2.0), tanh(p[0])}, 0);
      },
      {x}));
  EXPECT_TRUE(gradcheck_ok(
      [](const std::vector<Var>& v) {
        std::vector<Var> p = chunk(v[0], 2, -1);
        return mul(p[0], p[1]);
      },
      {x}));
  // Only one piece used: the others get zero gradient.
  EXPECT_TRUE(gradcheck_ok([](const std::vector<Var>& v) { return exp(split(v[0], {1, 4}, 0)[1]); }, {x}));
}

}  // namespace
}  // namespace lintra
