// test_gradcheck_checker.cpp — invariant: gradcheck itself can fail. A deliberately wrong backward
// (forward x², backward g·x instead of 2·g·x; a wrong sign; a gradient routed to the wrong element;
// a missing gradient for one input) is reported as a failure naming the entries, while the correct
// versions of the same ops pass. Without this, a checker that always says "ok" would make every
// other gradcheck test meaningless. Also: its input requirements are enforced.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/autograd/autograd_test_util.h"

namespace lintra {
namespace {

using ::testing::HasSubstr;
using testing::rnd;

// Forward x², with a backward of our choosing.
Var square_with(const Var& x, BackwardFn backward) {
  return make_result(ops::square(x.data()), "test_square", {x}, {x.data()}, std::move(backward));
}

TEST(AutogradGradcheckChecker, CatchesAWrongBackward) {
  Generator gen(171);
  Tensor x = rnd({2, 3}, gen, 0.5, 2);  // |x| ≥ 0.5: the error g·x is far above the tolerance
  GradcheckResult wrong = gradcheck(
      [](const std::vector<Var>& v) {
        return square_with(v[0], [](const std::vector<Tensor>& s, const Tensor& g) {
          return std::vector<Tensor>{ops::mul(g, s[0])};  // missing factor 2
        });
      },
      {x});
  EXPECT_FALSE(wrong.ok);
  EXPECT_THAT(wrong.message, HasSubstr("gradcheck failed"));
  EXPECT_THAT(wrong.message, HasSubstr("analytic"));
  EXPECT_GT(wrong.max_abs_error, 0.4);  // the error is |x| ≥ 0.5 on the diagonal
  GradcheckResult right = gradcheck(
      [](const std::vector<Var>& v) {
        return square_with(v[0], [](const std::vector<Tensor>& s, const Tensor& g) {
          return std::vector<Tensor>{ops::mul(ops::mul(g, s[0]), 2.0)};
        });
      },
      {x});
  EXPECT_TRUE(right.ok) << right.message;
  EXPECT_EQ(right.entries, 36);  // 6 outputs × 6 inputs
  EXPECT_LT(right.max_abs_error, 1e-8);  // central differences of x² are exact up to rounding (~1e-10)
}

TEST(AutogradGradcheckChecker, CatchesWrongSignAndMisroutedGradients) {
  Generator gen(172);
  Tensor x = rnd({4}, gen, 0.5, 2);
  EXPECT_FALSE(gradcheck(
                   [](const std::vector<Var>& v) {
                     return square_with(v[0], [](const std::vector<Tensor>& s, const Tensor& g) {
                       return std::vector<Tensor>{ops::mul(ops::mul(g, s[0]), -2.0)};
                     });
                   },
                   {x})
                   .ok);
  // Gradient of element i sent to element n−1−i (a reversed copy): only the Jacobian's diagonal
  // structure reveals it; the sum of gradients would not.
  EXPECT_FALSE(gradcheck(
                   [](const std::vector<Var>& v) {
                     return square_with(v[0], [](const std::vector<Tensor>& s, const Tensor& g) {
                       Tensor d = ops::mul(ops::mul(g, s[0]), 2.0);
                       Tensor rev = Tensor::from_vector(std::vector<int64_t>{3, 2, 1, 0}, {4});
                       return std::vector<Tensor>{ops::index_select(d, 0, rev)};
                     });
                   },
                   {x})
                   .ok);
}

TEST(AutogradGradcheckChecker, CatchesAMissingGradient) {
  // mul whose backward forgets b: b's numeric Jacobian is a, its analytic one 0.
  Generator gen(173);
  Tensor a = rnd({3}, gen, 0.5, 2), b = rnd({3}, gen, 0.5, 2);
  GradcheckResult r = gradcheck(
      [](const std::vector<Var>& v) {
        return make_result(ops::mul(v[0].data(), v[1].data()), "test_mul", {v[0], v[1]}, {v[1].data()},
                           [](const std::vector<Tensor>& s, const Tensor& g) {
                             return std::vector<Tensor>{ops::mul(g, s[0]), Tensor()};
                           });
      },
      {a, b});
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.message, HasSubstr("input 1"));
}

TEST(AutogradGradcheckChecker, RejectsFloat32InputsAndPassesIntegerOnes) {
  Generator gen(174);
  Tensor f = Tensor::uniform({3}, gen, -1, 1, DType::f32);
  try {
    gradcheck([](const std::vector<Var>& v) { return exp(v[0]); }, {f});
    ADD_FAILURE() << "float32 inputs must be rejected";
  } catch (const Error& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("float64"));
  }
  // An int64 input is a constant: only the float64 input's Jacobian is compared.
  Tensor x = rnd({4, 3}, gen);
  Tensor index = Tensor::from_vector(std::vector<int64_t>{2, 0, 2}, {3});
  GradcheckResult r = gradcheck([](const std::vector<Var>& v) { return index_select(v[0], 0, v[1].data()); },
                                {x, index});
  EXPECT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.entries, 9 * 12);
}

}  // namespace
}  // namespace lintra
