// test_strict_kernels.cpp — the strict device's kernel table (core/strict/kernel_table.cpp) computes what
// the CPU table computes, bit for bit, for every kernel of the list, reached through the ops of core/ops.h
// with inputs made on the strict device (any layout: views keep their strides through the host views).
// Invariant: for each case f, f(strict).cpu() equals f(cpu) exactly (NaN where NaN).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "core/ops.h"
#include "core/rng.h"
#include "tests/core/core_test_util.h"

namespace lintra {
namespace {

using Case = std::function<std::vector<Tensor>(Device)>;

// Inputs from a fixed seed, made on the CPU and copied to `d` (so both devices see the same values).
Tensor input(const Shape& shape, uint64_t seed, Device d, DType dtype = DType::f32) {
  Generator gen(seed);
  return Tensor::uniform(shape, gen, -2, 2, dtype).to(d);
}
Tensor indices(const std::vector<int64_t>& v, const Shape& shape, Device d) { return Tensor::from_vector(v, shape, d); }

void expect_same(const std::vector<Tensor>& cpu, const std::vector<Tensor>& strict, const std::string& name) {
  ASSERT_EQ(cpu.size(), strict.size()) << name;
  for (size_t i = 0; i < cpu.size(); ++i) {
    EXPECT_EQ(strict[i].device(), Device::strict()) << name << " output " << i;
    const std::vector<double> a = cpu[i].to(DType::f64).to_vector<double>();
    const std::vector<double> b = strict[i].cpu().to(DType::f64).to_vector<double>();
    ASSERT_EQ(a.size(), b.size()) << name;
    for (size_t j = 0; j < a.size(); ++j)
      EXPECT_TRUE(a[j] == b[j] || (std::isnan(a[j]) && std::isnan(b[j]))) << name << " output " << i << "[" << j << "]";
  }
}

const std::vector<std::pair<std::string, Case>>& cases() {
  static const std::vector<std::pair<std::string, Case>> all = {
      {"elementwise", [](Device d) {
         Tensor x = input({3, 4}, 1, d), y = input({4}, 2, d);
         return std::vector<Tensor>{ops::exp(x), ops::add(x, y), ops::gt(x, y), ops::where(ops::gt(x, 0.0), x, y),
                                    ops::unary_backward(kernels::unary_op<op::Tanh>, x, Tensor(), ops::tanh(x)),
                                    x.transpose(0, 1).contiguous(), x.to(DType::f64), Tensor::full({2}, 3, DType::f32, d)};
       }},
      {"reductions", [](Device d) {
         Tensor x = input({3, 5}, 3, d);
         auto [v, i] = ops::max(x, 1);
         return std::vector<Tensor>{ops::sum(x, {0}), ops::amin(x, {1}), v, i, ops::logsumexp(x, {1})};
       }},
      {"softmax_layer_norm", [](Device d) {
         Tensor x = input({4, 6}, 4, d), g = input({6}, 5, d), b = input({6}, 6, d);
         Tensor y = ops::softmax(x, -1);
         ops::LayerNormResult ln = ops::layer_norm(x, g, b, 1e-5);
         ops::LayerNormGrads lg = ops::layer_norm_backward(y, x, ln, g);
         return std::vector<Tensor>{y, ops::log_softmax(x, 0), ops::softmax_backward(y, x, -1, false), ln.y,
                                    ln.rstd, lg.dx, lg.dgamma};
       }},
      {"matmul", [](Device d) {
         Tensor a = input({2, 3, 4}, 7, d), b = input({4, 5}, 8, d);
         return std::vector<Tensor>{ops::matmul(a, b), ops::matmul(a.transpose(1, 2), a)};
       }},
      {"index", [](Device d) {
         Tensor x = input({4, 3}, 9, d);
         Tensor i = indices({2, 0, 3}, {3}, d), j = indices({0, 2, 1, 1}, {4, 1}, d);
         return std::vector<Tensor>{ops::index_select(x, 0, i), ops::gather(x, 1, j), ops::scatter_add(x, 1, j, x),
                                    ops::index_add(x, 0, i, ops::index_select(x, 0, i)), ops::one_hot(i, 5)};
       }},
      {"scan_sort", [](Device d) {
         Tensor x = input({3, 7}, 10, d);
         auto [v, i] = ops::sort(x, 1, true);
         return std::vector<Tensor>{ops::cumsum(x, 1), ops::cumsum(x, 0, true), v, i};
       }},
      {"random", [](Device d) {
         Generator g(11);
         return std::vector<Tensor>{Tensor::uniform({5, 3}, g, 0, 1, DType::f32, d),
                                    Tensor::normal({7}, g, 0, 1, DType::f64, d), ops::bernoulli({9}, 0.3, g, DType::f32, d)};
       }},
      {"causal_product_lstm", [](Device d) {
         Tensor q = input({1, 2, 5, 3}, 12, d), k = input({1, 2, 5, 3}, 13, d), v = input({1, 2, 5, 4}, 14, d);
         Tensor out = Tensor::empty({1, 2, 5, 4}, DType::f32, d);
         kernels::on(out).causal_product_forward(q, k, v, out);
         Tensor xw = input({2, 3, 8}, 15, d), w = input({8, 2}, 16, d), bh = input({8}, 17, d);
         Tensor len = indices({3, 2}, {2}, d), h = Tensor::empty({2, 3, 2}, DType::f32, d);
         Tensor acts = Tensor::empty({3, 2, 8}, DType::f32, d), hs = Tensor::empty({4, 2, 2}, DType::f32, d),
                cs = Tensor::empty({4, 2, 2}, DType::f32, d);
         kernels::on(h).lstm_forward(xw, w, bh, len, false, h, acts, hs, cs);
         return std::vector<Tensor>{out, h, acts, cs};
       }},
      {"model_kernels", [](Device d) {
         Tensor x = input({2, 3, 4}, 18, d);
         Tensor allowed = ops::gt(input({2, 1, 4}, 19, d), 0.0);
         Tensor buckets = indices({0, 1, 1, 0, 2, 2, 1, 0}, {1, 2, 4}, d);
         ops::LshPlan plan = ops::lsh_plan(buckets, indices({3}, {1}, d), 2, true, true, -1e9, DType::f32);
         Tensor params = input({3, 6}, 20, d);
         Generator g(21);
         Tensor u = Tensor::uniform({3, 3}, g, 0, 1, DType::f64, d);
         Tensor lp = ops::log_softmax(input({2, 4, 3}, 22, d), -1);
         ops::CtcLoss ctc = ops::ctc_loss(lp, indices({1, 2, 2, 0}, {2, 2}, d), indices({4, 3}, {2}, d),
                                          indices({2, 1}, {2}, d));
         return std::vector<Tensor>{ops::masked_softmax(x, allowed), plan.query_rows, plan.window_rows, plan.scatter,
                                    plan.additive, plan.row_ok, ops::sample_mol(params, u, 256).values, ctc.nll,
                                    ctc.grad, ctc.status, Tensor::arange(6, DType::f64, d)};
       }},
      {"optimizer_kernels", [](Device d) {
         Tensor p = input({10}, 23, d).clone(), g = input({10}, 24, d), m = input({10}, 25, d).clone(),
                v = ops::abs(input({10}, 26, d)), buf = input({10}, 27, d).clone();
         ops::adam_update_(p, g, m, v, ops::AdamStep{.decay = 0.99, .step = 0.01, .rectified = true});
         ops::adam_update_(p, g, m, v, ops::AdamStep{.decay = 1, .step = 0.02, .rectified = false});
         ops::sgd_update_(p, g, buf, 0.1, 0.9, 0.01, false);
         return std::vector<Tensor>{p, m, v, buf, Tensor::scalar(ops::sum_squares(g), DType::f64, d)};
       }},
  };
  return all;
}

TEST(CoreStrictKernels, EveryKernelOnStrictEqualsTheCpu) {
  for (const auto& [name, f] : cases()) expect_same(f(Device::cpu), f(Device::strict()), name);
}

TEST(CoreStrictKernels, StrictIndexChecksStillThrow) {
  Tensor x = input({3, 5}, 1, Device::strict());
  std::string msg = testing::error_of([&] { ops::index_select(x, 1, indices({0, 5}, {2}, Device::strict())); });
  EXPECT_HAS(msg, "index 5 is out of range for dim 1 of size 5");
}

}  // namespace
}  // namespace lintra
