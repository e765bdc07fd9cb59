// test_engine.cpp — invariant: the backward engine's semantics. A Var used several times gets the
// sum of its gradients; leaves accumulate across backward calls; the graph's saved state is freed
// after backward unless retain_graph, and a second backward through a freed graph fails with a
// message that says what to do; a tensor saved for backward and modified in place afterwards is
// detected and named; gradients summed in place touch nothing another handle sees; NoGradGuard records
// nothing; detach cuts the graph; misuse (non-scalar output without a gradient, a gradient of the wrong
// shape, nothing requiring grad) throws.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "autograd/functional.h"
#include "autograd_test_util.h"

namespace lintra {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using lintra::testing::error_of;

Tensor vec(std::vector<double> v) {
  const int64_t n = int64_t(v.size());
  return Tensor::from_vector(v, {n});
}
std::vector<double> values(const Tensor& t) { return t.to_vector<double>(); }


TEST(AutogradEngine, AVarUsedTwiceAccumulates) {
  Var x(vec({1, -2, 3}), true);
  Var y = add(mul(x, x), x);  // dy/dx = 2x + 1
  sum(y).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{3, -3, 7}));
}

TEST(AutogradEngine, DiamondGraphIsOrderedCorrectly) {
  // a = 2x, b = exp(a), c = a·b: dc/dx = 2·e^{2x} + 2x·2·e^{2x}. Node a feeds two consumers; its
  // backward must run once, after both have contributed.
  Var x(vec({0.3, -0.7}), true);
  Var a = mul(x, 2.0);
  Var c = mul(a, exp(a));
  sum(c).backward();
  std::vector<double> g = values(x.grad());
  for (size_t i = 0; i < 2; ++i) {
    double xv = i == 0 ? 0.3 : -0.7;
    EXPECT_NEAR(g[i], 2 * std::exp(2 * xv) * (1 + 2 * xv), 1e-14);  // a few roundings of values ≲ 4
  }
}

TEST(AutogradEngine, LeavesAccumulateAcrossBackwardCalls) {
  Var x(vec({1, 2}), true);
  sum(mul(x, 3.0)).backward();
  sum(mul(x, 2.0)).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{5, 5}));
  x.zero_grad();
  EXPECT_FALSE(x.grad().defined());
  sum(mul(x, 4.0)).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{4, 4}));
  // The leaf's gradient is its own tensor: modifying it does not touch anything in the graph.
  Tensor g = x.grad();
  g.fill_(0);
  EXPECT_EQ(values(x.grad()), (std::vector<double>{0, 0}));
}

TEST(AutogradEngine, SecondBackwardWithoutRetainGraphThrows) {
  Var x(vec({1, 2}), true);
  Var y = sum(exp(x));
  y.backward();
  std::string msg = error_of([&] { y.backward(); });
  EXPECT_THAT(msg, AllOf(HasSubstr("second time"), HasSubstr("retain_graph")));
}

TEST(AutogradEngine, RetainGraphAllowsASecondBackward) {
  Var x(vec({1, 2}), true);
  Var y = sum(square(x));
  y.backward(Tensor(), /*retain_graph=*/true);
  y.backward(Tensor(), /*retain_graph=*/true);
  EXPECT_EQ(values(x.grad()), (std::vector<double>{4, 8}));  // 2·(2x)
  y.backward();                                              // the last one may free the graph
  EXPECT_EQ(values(x.grad()), (std::vector<double>{6, 12}));
  EXPECT_THAT(error_of([&] { y.backward(); }), HasSubstr("retain_graph"));
}

TEST(AutogradEngine, InPlaceChangeOfASavedTensorIsDetected) {
  // exp saves its output; zeroing that output in place invalidates the saved tensor.
  Var x(vec({0.5, 1.5}), true);
  Var y = exp(x);
  Tensor y_data = y.data();  // a handle to y's storage
  y_data.fill_(0);
  std::string msg = error_of([&] { sum(y).backward(); });
  EXPECT_THAT(msg, AllOf(HasSubstr("exp"), HasSubstr("modified in place")));
  // An input saved by mul, modified through a view of it.
  Var a(vec({1, 2, 3}), true), b(vec({4, 5, 6}), true);
  Var c = mul(a, b);
  a.data().slice(0, 0, 1).fill_(7);  // a view: a temporary handle
  EXPECT_THAT(error_of([&] { sum(c).backward(); }), AllOf(HasSubstr("mul"), HasSubstr("modified in place")));
  // Ops that save nothing do not care.
  Var p(vec({1, 2}), true);
  Var q = add(p, 1.0);
  Tensor p_data = p.data();
  p_data.fill_(3);
  sum(q).backward();
  EXPECT_EQ(values(p.grad()), (std::vector<double>{1, 1}));
}

TEST(AutogradEngine, NoGradGuardRecordsNothing) {
  Var x(vec({1, 2}), true);
  {
    NoGradGuard guard;
    EXPECT_FALSE(grad_enabled());
    Var y = exp(mul(x, x));
    EXPECT_FALSE(y.requires_grad());
    EXPECT_EQ(y.grad_fn(), nullptr);
    {
      NoGradGuard nested;
    }
    EXPECT_FALSE(grad_enabled());  // a nested guard restores the outer state, not "on"
  }
  EXPECT_TRUE(grad_enabled());
  Var z = exp(x);
  EXPECT_TRUE(z.requires_grad());
  EXPECT_NE(z.grad_fn(), nullptr);
  EXPECT_EQ(z.grad_fn()->name, "exp");
}

TEST(AutogradEngine, DetachCutsTheGraph) {
  Var x(vec({1, -2}), true);
  Var d = x.detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_TRUE(d.is_leaf());
  EXPECT_TRUE(d.data().shares_storage_with(x.data()));
  Var y = mul(d, x);  // d/dx = d = x (not 2x)
  sum(y).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{1, -2}));
  Var e = exp(x).detach();
  EXPECT_EQ(e.grad_fn(), nullptr);
  EXPECT_THAT(error_of([&] { sum(e).backward(); }), HasSubstr("does not require grad"));
}

TEST(AutogradEngine, OnlyLeavesThatRequireGradGetGradients) {
  Var x(vec({1, 2}), true), c(vec({3, 4}), false);
  Var h = mul(x, c);  // intermediate
  sum(h).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{3, 4}));
  EXPECT_FALSE(c.grad().defined());
  EXPECT_FALSE(h.grad().defined());  // intermediates keep no gradient
  EXPECT_FALSE(h.is_leaf());
}

TEST(AutogradEngine, MisuseThrows) {
  Var x(Tensor::ones({2, 3}, DType::f64), true);
  Var y = exp(x);
  EXPECT_THAT(error_of([&] { y.backward(); }), AllOf(HasSubstr("non-scalar"), HasSubstr("[2, 3]")));
  EXPECT_THAT(error_of([&] { y.backward(Tensor::ones({3, 2}, DType::f64)); }),
              AllOf(HasSubstr("gradient"), HasSubstr("[3, 2]"), HasSubstr("[2, 3]")));
  // An explicit gradient for a non-scalar output works.
  y.backward(Tensor::full({2, 3}, 2.0, DType::f64));
  EXPECT_NEAR(x.grad().at({1, 2}), 2 * std::exp(1.0), 1e-15);  // std::exp, then ×2: within 1 ulp of 5.4
  Var c(Tensor::ones({2}, DType::f64));
  EXPECT_THAT(error_of([&] { sum(c).backward(); }), HasSubstr("does not require grad"));
  EXPECT_THAT(error_of([] { Var(Tensor::zeros({2}, DType::i64), true); }), HasSubstr("floating"));
  // A backward on a leaf itself accumulates the given gradient.
  Var leaf(Tensor::scalar(2.0, DType::f64), true);
  leaf.backward();
  EXPECT_EQ(leaf.grad().item(), 1.0);
}

TEST(AutogradEngine, LongChainsDoNotOverflowTheStack) {
  // 20,000 ops in a chain: the topological sort is iterative, and the graph is freed node by node.
  Var x(Tensor::scalar(1.0, DType::f64), true);
  Var y = x;
  for (int i = 0; i < 20000; ++i) y = add(y, 1e-4);
  y.backward();
  EXPECT_EQ(x.grad().item(), 1.0);
  EXPECT_NEAR(y.item(), 3.0, 1e-9);  // 20,000 roundings of ≤ 2.2e-16·3 each: ≤ 1.4e-11
}

// Gradients of a Var used several times are summed in place when the engine alone holds the running
// sum (autograd/engine.cpp add_into); these check that nothing anyone else holds ever changes.
TEST(AutogradEngine, SummingInPlaceLeavesTheCallersGradientAlone) {
  Var x(vec({1, -2, 3}), true);
  Var y = add(x, x);  // add's backward hands the same tensor to both uses
  const Tensor grad_in = vec({0.5, 1, -1});
  y.backward(grad_in);
  EXPECT_EQ(values(grad_in), (std::vector<double>{0.5, 1, -1}));
  EXPECT_EQ(values(x.grad()), (std::vector<double>{1, 2, -2}));
}

TEST(AutogradEngine, AHeldLeafGradientKeepsItsValuesWhenTheNextBackwardAccumulates) {
  Var x(vec({1, 2}), true);
  sum(mul(x, 3.0)).backward();
  const Tensor held = x.grad();  // a second handle: the next sum must not be written into it
  sum(mul(x, 2.0)).backward();
  EXPECT_EQ(values(held), (std::vector<double>{3, 3}));
  EXPECT_EQ(values(x.grad()), (std::vector<double>{5, 5}));
  sum(mul(x, 4.0)).backward();  // no other handle now: summed in place, the same values
  EXPECT_EQ(values(x.grad()), (std::vector<double>{9, 9}));
}

TEST(AutogradEngine, ABroadcastGradientIsNeverSummedIntoInPlace) {
  // sum's backward hands back a stride-0 view of one element; a = 2x then gets it plus 2a·g, and x
  // gets 2·(1 + 2a) = 2 + 8x. Written into in place, the view's one element would take all three sums.
  Var x(vec({1, 2, 3}), true);
  Var a = mul(x, 2.0);
  add(sum(a), sum(mul(a, a))).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{10, 18, 26}));
}

TEST(AutogradEngine, ALeafGivenAViewGetsItsOwnDenseGradient) {
  Var x(vec({1, 2, 3}), true);
  sum(x).backward();  // the gradient arrives as a stride-0 view
  EXPECT_TRUE(x.grad().is_contiguous());
  Tensor g = x.grad();
  g.fill_(7);  // the leaf's gradient is its own: filling it touches only it
  EXPECT_EQ(values(x.grad()), (std::vector<double>{7, 7, 7}));
  sum(x).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{8, 8, 8}));
}

}  // namespace
}  // namespace lintra

// A very deep graph dropped without a backward is freed iteratively (no stack overflow).
TEST(AutogradEngine, DroppingAVeryDeepGraphDoesNotOverflowTheStack) {
  lintra::Var x(lintra::Tensor::ones({1}), true);
  {
    lintra::Var y = x;
    for (int i = 0; i < 1000000; ++i) y = lintra::add(y, 1.0);
    EXPECT_EQ(y.data().item(), 1000001.0);
  }  // y's graph (a million nodes) is destroyed here
  SUCCEED();
}
