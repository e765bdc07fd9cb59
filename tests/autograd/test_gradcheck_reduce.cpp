// test_gradcheck_reduce.cpp — invariant: the backward of every differentiable reduction (sum, mean
// over any set of dims with and without keepdim, max/min over one dim, logsumexp) agrees with
// central finite differences (gradcheck, float64), on contiguous and non-contiguous inputs.
// max/min inputs have distinct values at least 0.06 apart, so the arg-max never moves within ±ε.
// Tolerances: gradcheck's defaults, justified in autograd_test_util.h.
#include <gtest/gtest.h>

#include "tests/autograd/autograd_test_util.h"

namespace lintra {
namespace {

using testing::gradcheck_ok;
using testing::rnd;
using testing::rnd_distinct;

const std::vector<Dims> kDims = {{}, {0}, {-1}, {1}, {0, 2}, {2, 0, 1}};

TEST(AutogradGradcheckReduce, SumAndMean) {
  Generator gen(111);
  for (const Dims& dims : kDims)
    for (bool keepdim : {false, true}) {
      Tensor x = rnd({2, 3, 4}, gen);
      std::string what = fmt::format("dims [{}] keepdim {}", fmt::join(dims, ", "), keepdim);
      EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return sum(v[0], dims, keepdim); }, {x})) << what;
      EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return mean(v[0], dims, keepdim); }, {x})) << what;
      // Non-contiguous input (permuted), and the reduction feeding a nonlinearity.
      EXPECT_TRUE(gradcheck_ok(
          [&](const std::vector<Var>& v) { return square(sum(permute(v[0], {2, 0, 1}), dims, keepdim)); }, {x}))
          << what << " permuted";
      EXPECT_TRUE(gradcheck_ok(
          [&](const std::vector<Var>& v) { return exp(mean(slice(v[0], 2, 0, 4, 3), dims, keepdim)); }, {x}))
          << what << " sliced";
    }
  Tensor s = rnd({}, gen);
  EXPECT_TRUE(gradcheck_ok([](const std::vector<Var>& v) { return sum(v[0]); }, {s}));
}

TEST(AutogradGradcheckReduce, MaxMinOverOneDim) {
  Generator gen(112);
  for (int64_t dim : {0, 1, 2, -1})
    for (bool keepdim : {false, true}) {
      Tensor x = rnd_distinct({2, 3, 4}, gen);
      std::string what = fmt::format("dim {} keepdim {}", dim, keepdim);
      EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return max(v[0], dim, keepdim).first; }, {x}))
          << what;
      EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return min(v[0], dim, keepdim).first; }, {x}))
          << what;
      EXPECT_TRUE(gradcheck_ok(
          [&](const std::vector<Var>& v) { return max(transpose(v[0], 0, 2), dim, keepdim).first; }, {x}))
          << what << " transposed";
    }
  // The indices are the arg-max, returned as a tensor.
  Var x(Tensor::from_vector({1.f, 5.f, 2.f, 7.f, 0.f, 3.f}, {2, 3}), true);
  auto [values, indices] = max(x, 1);
  EXPECT_EQ(indices.to_vector<int64_t>(), (std::vector<int64_t>{1, 0}));
  sum(values).backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{0, 1, 0, 1, 0, 0}));
}

TEST(AutogradGradcheckReduce, Logsumexp) {
  Generator gen(113);
  for (const Dims& dims : {Dims{1}, Dims{-1}, Dims{0, 2}, Dims{}})
    for (bool keepdim : {false, true}) {
      Tensor x = rnd({2, 3, 4}, gen, -3, 3);
      std::string what = fmt::format("dims [{}] keepdim {}", fmt::join(dims, ", "), keepdim);
      EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return logsumexp(v[0], dims, keepdim); }, {x}))
          << what;
      EXPECT_TRUE(gradcheck_ok(
          [&](const std::vector<Var>& v) { return logsumexp(permute(v[0], {1, 2, 0}), dims, keepdim); }, {x}))
          << what << " permuted";
    }
  // Large logits: the shift by the max keeps values and gradients finite.
  Tensor big = ops::add(rnd({3, 5}, gen), 500.0);
  EXPECT_TRUE(gradcheck_ok([](const std::vector<Var>& v) { return logsumexp(v[0], {1}); }, {big}));
}

}  // namespace
}  // namespace lintra
