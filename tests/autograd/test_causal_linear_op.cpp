// test_causal_linear_op.cpp — invariant: causal_linear_product (the fused kernel with its own
// backward) is the masked quadratic form matmul(q, kᵀ) ∘ tril · v, in value and in gradient:
//   - float64 gradcheck (central differences, full Jacobian) at tiny sizes, within and across a
//     chunk boundary (the kernel's chunks are 32 rows);
//   - fused vs composed from Var ops (matmul, masked_fill, matmul), the port of fast-transformers'
//     test_causal_product_cpu.py: N = 10…100, random E and M, positive inputs, float32, maximum
//     elementwise relative error < 1e-4 for the output and the three gradients;
//   - non-contiguous inputs (views from the head split), only q, k, v saved, and errors that name
//     the op and the shapes.
//
// Tolerances: gradcheck's defaults (eps 1e-6, rtol 1e-4, atol 1e-6) — the op is linear in each
// input, so central differences are exact up to rounding (≈1e-10). Fused vs composed: both sum the
// same positive products in float32 in different orders, |Δ| ≲ n·u·value with n ≲ 150 additions
// → ≤ 1e-5 relative; 1e-4 is fast-transformers' threshold ×10 (theirs is 1e-5 at N ≤ 100 with
// elementwise-float products summed the same way in both).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "autograd/functional.h"
#include "autograd/gradcheck.h"
#include "tests/autograd/autograd_test_util.h"

namespace lintra {
namespace {

using testing::error_of;

// The N×N u8 mask of the future (j > i), broadcast over (B, H).
Tensor future_mask(int64_t N) {
  std::vector<uint8_t> m(size_t(N * N), 0);
  for (int64_t i = 0; i < N; ++i)
    for (int64_t j = i + 1; j < N; ++j) m[size_t(i * N + j)] = 1;
  return Tensor::from_vector(m, {N, N});
}

// The composed form: (Q·Kᵀ with the future zeroed)·V, from differentiable ops.
Var composed(const Var& q, const Var& k, const Var& v) {
  const int64_t N = q.shape()[2];
  Var scores = matmul(q, transpose(k, -1, -2));
  return matmul(masked_fill(scores, future_mask(N), 0.0), v);
}

double max_relative_error(const Tensor& a, const Tensor& b) {
  const std::vector<double> x = a.to_vector<double>(), y = b.to_vector<double>();
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::abs(x[i] - y[i]) / std::abs(y[i]));
  return worst;
}

TEST(AutogradCausalLinear, GradcheckFloat64) {
  Generator gen(81);
  struct Case {
    int64_t B, H, N, E, M;
  };
  for (const Case& c : {Case{1, 2, 5, 3, 4}, Case{1, 1, 35, 2, 3}, Case{2, 1, 3, 4, 2}}) {
    Tensor q = Tensor::uniform({c.B, c.H, c.N, c.E}, gen, -1, 1, DType::f64);
    Tensor k = Tensor::uniform({c.B, c.H, c.N, c.E}, gen, -1, 1, DType::f64);
    Tensor v = Tensor::uniform({c.B, c.H, c.N, c.M}, gen, -1, 1, DType::f64);
    GradcheckResult r =
        gradcheck([](const std::vector<Var>& x) { return causal_linear_product(x[0], x[1], x[2]); }, {q, k, v});
    EXPECT_TRUE(r.ok) << fmt::format("B={} H={} N={} E={} M={}: ", c.B, c.H, c.N, c.E, c.M) << r.message;
    EXPECT_GT(r.entries, 0);
  }
}

TEST(AutogradCausalLinear, FusedEqualsComposedFloat32) {
  // fast-transformers: N = 10, H = 10, L = 100, E and M random in [10, 256), inputs torch.rand; the
  // gradients are those of Σ out ⊙ go. Here B = 2, H = 3, L from 10 to 100, E and M in [10, 100).
  Generator gen(82);
  for (int64_t N : {10, 33, 64, 100}) {
    const int64_t E = 10 + int64_t(Tensor::uniform({1}, gen, 0, 90).item());
    const int64_t M = 10 + int64_t(Tensor::uniform({1}, gen, 0, 90).item());
    SCOPED_TRACE(fmt::format("N={} E={} M={}", N, E, M));
    const int64_t B = 2, H = 3;
    Tensor qt = Tensor::uniform({B, H, N, E}, gen, 0, 1), kt = Tensor::uniform({B, H, N, E}, gen, 0, 1);
    Tensor vt = Tensor::uniform({B, H, N, M}, gen, 0, 1), go = Tensor::uniform({B, H, N, M}, gen, 0, 1);
    Var q1(qt, true), k1(kt, true), v1(vt, true), q2(qt, true), k2(kt, true), v2(vt, true);
    Var fused = causal_linear_product(q1, k1, v1);
    Var ref = composed(q2, k2, v2);
    EXPECT_LT(max_relative_error(fused.data(), ref.data()), 1e-4) << "output";
    sum(mul(fused, Var(go))).backward();
    sum(mul(ref, Var(go))).backward();
    EXPECT_LT(max_relative_error(q1.grad(), q2.grad()), 1e-4) << "grad q";
    EXPECT_LT(max_relative_error(k1.grad(), k2.grad()), 1e-4) << "grad k";
    EXPECT_LT(max_relative_error(v1.grad(), v2.grad()), 1e-4) << "grad v";
  }
}

TEST(AutogradCausalLinear, NonContiguousInputsFromAHeadSplit) {
  // x (B, N, H·E) split into heads and transposed to (B, H, N, E): views, no copies.
  Generator gen(83);
  const int64_t B = 2, N = 40, H = 2, E = 16, M = 8;
  Tensor xq = Tensor::uniform({B, N, H * E}, gen, 0, 1, DType::f64);
  Tensor xk = Tensor::uniform({B, N, H * E}, gen, 0, 1, DType::f64);
  Tensor xv = Tensor::uniform({B, N, H * M}, gen, -1, 1, DType::f64);
  auto heads = [&](const Var& x, int64_t D) { return transpose(reshape(x, {B, N, H, D}), 1, 2); };
  Var a(xq, true), b(xk, true), c(xv, true), a2(xq, true), b2(xk, true), c2(xv, true);
  Var fused = causal_linear_product(heads(a, E), heads(b, E), heads(c, M));
  Var ref = composed(heads(a2, E), heads(b2, E), heads(c2, M));
  ASSERT_FALSE(heads(a, E).data().is_contiguous());
  EXPECT_LT(ops::max_abs_diff(fused.data(), ref.data()), 1e-12);
  Tensor go = Tensor::uniform(fused.shape(), gen, -1, 1, DType::f64);
  sum(mul(fused, Var(go))).backward();
  sum(mul(ref, Var(go))).backward();
  EXPECT_LT(ops::max_abs_diff(a.grad(), a2.grad()), 1e-12);
  EXPECT_LT(ops::max_abs_diff(b.grad(), b2.grad()), 1e-12);
  EXPECT_LT(ops::max_abs_diff(c.grad(), c2.grad()), 1e-12);
}

TEST(AutogradCausalLinear, SavesOnlyTheInputs) {
  Generator gen(84);
  Var q(Tensor::uniform({1, 1, 6, 3}, gen), true), k(Tensor::uniform({1, 1, 6, 3}, gen), true),
      v(Tensor::uniform({1, 1, 6, 5}, gen), true);
  Var out = causal_linear_product(q, k, v);
  ASSERT_TRUE(out.grad_fn());
  EXPECT_EQ(out.grad_fn()->name, "causal_linear_product");
  ASSERT_EQ(out.grad_fn()->saved.size(), 3u);
  EXPECT_TRUE(out.grad_fn()->saved[0].tensor.shares_storage_with(q.data()));
  EXPECT_TRUE(out.grad_fn()->saved[1].tensor.shares_storage_with(k.data()));
  EXPECT_TRUE(out.grad_fn()->saved[2].tensor.shares_storage_with(v.data()));
  // Only v requires grad: q and k get none.
  Var q2(q.data(), false), k2(k.data(), false), v2(v.data(), true);
  sum(causal_linear_product(q2, k2, v2)).backward();
  EXPECT_FALSE(q2.grad().defined());
  EXPECT_TRUE(v2.grad().defined());
}


// The normaliser op (causal_linear_normalise): float64 gradcheck with positive q, k (as φ makes
// them), and equal to the composed form it replaced — cumsum, mul, sum, add eps, div — in float32,
// value and gradients, from head-split views, on the CPU and the strict device.
TEST(AutogradCausalLinear, NormaliseGradcheckFloat64) {
  Generator gen(95);
  for (int64_t N : {int64_t(1), int64_t(6)}) {
    const Tensor q = Tensor::uniform({1, 2, N, 3}, gen, 0.1, 1, DType::f64);
    const Tensor k = Tensor::uniform({1, 2, N, 3}, gen, 0.1, 1, DType::f64);
    const Tensor num = Tensor::uniform({1, 2, N, 4}, gen, -1, 1, DType::f64);
    EXPECT_TRUE(testing::gradcheck_ok(
        [](const std::vector<Var>& v) { return causal_linear_normalise(v[0], v[1], v[2], 1e-3); }, {q, k, num}))
        << "N=" << N;
  }
}

TEST(AutogradCausalLinear, NormaliseEqualsTheComposedForm) {
  for (Device d : {Device::cpu, Device::strict()}) {
    Generator gen(96);
    const int64_t B = 2, N = 45, H = 3, E = 8, M = 12;
    const Tensor qd = Tensor::uniform({B, N, H, E}, gen, 0.1, 1).to(d), kd = Tensor::uniform({B, N, H, E}, gen, 0.1, 1).to(d);
    const Tensor nd = Tensor::uniform({B, H, N, M}, gen, -1, 1).to(d), gd = Tensor::uniform({B, H, N, M}, gen, -1, 1).to(d);
    Var q1(qd, true), k1(kd, true), n1(nd, true), q2(qd, true), k2(kd, true), n2(nd, true);
    Var fused = causal_linear_normalise(permute(q1, {0, 2, 1, 3}), permute(k1, {0, 2, 1, 3}), n1, 1e-6);
    Var pq = permute(q2, {0, 2, 1, 3}), pk = permute(k2, {0, 2, 1, 3});
    Var composed = div(n2, add(sum(mul(pq, cumsum(pk, 2)), {3}, /*keepdim=*/true), 1e-6));
    sum(mul(fused, Var(gd))).backward();
    sum(mul(composed, Var(gd))).backward();
    const auto rel = [](const Tensor& a, const Tensor& b) {
      return ops::max_abs_diff(a.cpu(), b.cpu()) / std::max(1e-30, ops::max_abs_diff(b.cpu(), ops::mul(b.cpu(), 0.0)));
    };
    EXPECT_LT(rel(fused.data(), composed.data()), 1e-5) << d.str();
    EXPECT_LT(rel(q1.grad(), q2.grad()), 1e-5) << d.str();
    EXPECT_LT(rel(k1.grad(), k2.grad()), 1e-5) << d.str();
    EXPECT_LT(rel(n1.grad(), n2.grad()), 1e-5) << d.str();
  }
}

TEST(AutogradCausalLinear, ErrorsNameTheOpAndTheShapes) {
  auto t = [](const Shape& s, DType dt = DType::f32) { return Var(Tensor::zeros(s, dt)); };
  std::string m = error_of([&] { causal_linear_product(t({2, 3, 4}), t({2, 3, 4}), t({2, 3, 4})); });
  EXPECT_NE(m.find("causal_linear_product"), std::string::npos) << m;
  EXPECT_NE(m.find("[2, 3, 4]"), std::string::npos) << m;
  m = error_of([&] { causal_linear_product(t({1, 2, 5, 3}), t({1, 2, 5, 4}), t({1, 2, 5, 6})); });
  EXPECT_NE(m.find("causal_linear_product"), std::string::npos) << m;
  EXPECT_NE(m.find("[1, 2, 5, 3]"), std::string::npos) << m;
  EXPECT_NE(m.find("[1, 2, 5, 4]"), std::string::npos) << m;
  m = error_of([&] { causal_linear_product(t({1, 2, 5, 3}), t({1, 2, 5, 3}), t({1, 2, 6, 7})); });
  EXPECT_NE(m.find("[1, 2, 6, 7]"), std::string::npos) << m;
  m = error_of([&] { causal_linear_product(t({1, 2, 5, 3}), t({1, 2, 5, 3}), t({1, 2, 5, 7}, DType::f64)); });
  EXPECT_NE(m.find("dtype"), std::string::npos) << m;
}

}  // namespace
}  // namespace lintra
