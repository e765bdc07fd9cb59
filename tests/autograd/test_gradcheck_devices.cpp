// test_gradcheck_devices.cpp — invariant: every differentiable op's backward agrees with central finite
// differences (gradcheck, float64) on each device besides the CPU: the strict test device (instantiation
// Strict, core/device.h: its storage refuses host reads, so an op that reads tensor data on the host fails
// here) and the GPU (instantiation Cuda, cuda:0: its kernels and cuBLAS in float64; every test skips with
// GTEST_SKIP where no GPU is visible or the build has no CUDA). The other files of this folder check the
// same ops on the CPU with more shapes and edge cases; here each op family runs once or twice at small
// shapes, strided views included. gradcheck perturbs the inputs on the host and runs f on their device
// (autograd/gradcheck.cpp); the index, mask and length tensors f closes over are made on the device too.
// Tolerances: gradcheck's defaults, justified in autograd_test_util.h.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "tests/autograd/autograd_test_util.h"

namespace lintra {
namespace {

using testing::gradcheck_ok;
using testing::rnd;
using testing::rnd_away;
using testing::rnd_distinct;

class AutogradGradcheckOnDevice : public ::testing::TestWithParam<Device> {
 protected:
  void SetUp() override {
    LINTRA_SKIP_WITHOUT_GPU_ON(dev());
  }
  Device dev() const { return GetParam(); }
  // A host tensor (values, indices, masks) on the device under test.
  Tensor on(const Tensor& t) const { return t.to(dev()); }
  // gradcheck of f at `inputs`, moved to the device under test.
  ::testing::AssertionResult check(const GradcheckFn& f, std::vector<Tensor> inputs) const {
    for (Tensor& x : inputs) x = on(x);
    return gradcheck_ok(f, inputs);
  }
  Generator gen_{2026};
};

using UnaryFn = std::function<Var(const Var&)>;
struct UnaryCase {
  std::string name;
  UnaryFn f;
  Tensor x;  // inside the op's domain, away from its kinks
};

TEST_P(AutogradGradcheckOnDevice, UnaryOps) {
  const Shape s{3, 4};
  const std::vector<UnaryCase> cases = {
      {"exp", [](const Var& x) { return exp(x); }, rnd(s, gen_)},
      {"log", [](const Var& x) { return log(x); }, rnd(s, gen_, 0.2, 2)},
      {"log1p", [](const Var& x) { return log1p(x); }, rnd(s, gen_, -0.5, 2)},
      {"sqrt", [](const Var& x) { return sqrt(x); }, rnd(s, gen_, 0.2, 2)},
      {"rsqrt", [](const Var& x) { return rsqrt(x); }, rnd(s, gen_, 0.2, 2)},
      {"abs", [](const Var& x) { return abs(x); }, rnd_away(s, gen_, {0})},
      {"square", [](const Var& x) { return square(x); }, rnd(s, gen_)},
      {"tanh", [](const Var& x) { return tanh(x); }, rnd(s, gen_, -2, 2)},
      {"sigmoid", [](const Var& x) { return sigmoid(x); }, rnd(s, gen_, -3, 3)},
      {"log_sigmoid", [](const Var& x) { return log_sigmoid(x); }, rnd(s, gen_, -3, 3)},
      {"relu", [](const Var& x) { return relu(x); }, rnd_away(s, gen_, {0})},
      {"elu", [](const Var& x) { return elu(x, 0.7); }, rnd_away(s, gen_, {0})},
      {"elu_feature", [](const Var& x) { return elu_feature(x); }, rnd_away(s, gen_, {0})},
      {"gelu", [](const Var& x) { return gelu(x); }, rnd(s, gen_, -2, 2)},
      {"softplus", [](const Var& x) { return softplus(x); }, rnd(s, gen_, -3, 3)},
      {"pow 2.5", [](const Var& x) { return pow(x, 2.5); }, rnd(s, gen_, 0.2, 2)},
      {"mul 1.5", [](const Var& x) { return mul(x, 1.5); }, rnd(s, gen_)},
      {"clamp", [](const Var& x) { return clamp(x, -0.5, 0.5); }, rnd_away(s, gen_, {-0.5, 0.5})},
  };
  for (const UnaryCase& c : cases) {
    EXPECT_TRUE(check([&](const std::vector<Var>& v) { return c.f(v[0]); }, {c.x})) << c.name << " on " << dev().str();
    // A strided view: the transpose of a (4, 3) tensor.
    EXPECT_TRUE(check([&](const std::vector<Var>& v) { return c.f(transpose(v[0], 0, 1)); },
                      {c.x.transpose(0, 1).contiguous()}))
        << c.name << " transposed, on " << dev().str();
  }
}

TEST_P(AutogradGradcheckOnDevice, BinaryOpsWithBroadcasting) {
  const Tensor a = rnd({2, 3, 4}, gen_), b = rnd({3, 1}, gen_, 0.5, 2), p = rnd({2, 3, 4}, gen_, 0.3, 2);
  using BinaryFn = std::function<Var(const Var&, const Var&)>;
  const std::vector<std::pair<std::string, BinaryFn>> ops = {
      {"add", [](const Var& x, const Var& y) { return add(x, y); }},
      {"sub", [](const Var& x, const Var& y) { return sub(x, y); }},
      {"mul", [](const Var& x, const Var& y) { return mul(x, y); }},
      {"div", [](const Var& x, const Var& y) { return div(x, y); }},
  };
  for (const auto& [name, f] : ops) {
    EXPECT_TRUE(check([&](const std::vector<Var>& v) { return f(v[0], v[1]); }, {a, b})) << name << " on " << dev().str();
    EXPECT_TRUE(check([&](const std::vector<Var>& v) { return f(transpose(v[0], 0, 2), transpose(v[1], 0, 1)); },
                      {a.permute({2, 1, 0}).contiguous(), b.transpose(0, 1).contiguous()}))
        << name << " strided, on " << dev().str();
  }
  EXPECT_TRUE(check([](const std::vector<Var>& v) { return pow(v[0], v[1]); }, {p, b})) << dev().str();
  const Tensor d1 = rnd_distinct({3, 4}, gen_), d2 = rnd_distinct({3, 4}, gen_);
  EXPECT_TRUE(check([](const std::vector<Var>& v) { return maximum(v[0], v[1]); }, {d1, d2})) << dev().str();
  EXPECT_TRUE(check([](const std::vector<Var>& v) { return minimum(v[0], v[1]); }, {d1, d2})) << dev().str();
  const Tensor cond = on(ops::gt(rnd({3, 1}, gen_), 0.0));
  EXPECT_TRUE(check([&](const std::vector<Var>& v) { return where(cond, v[0], v[1]); }, {d1, d2})) << dev().str();
  EXPECT_TRUE(check([&](const std::vector<Var>& v) { return masked_fill(v[0], cond, -3.0); }, {d1})) << dev().str();
}

TEST_P(AutogradGradcheckOnDevice, Reductions) {
  const Tensor x = rnd({3, 4, 5}, gen_), d = rnd_distinct({3, 4, 5}, gen_);
  EXPECT_TRUE(check([](const std::vector<Var>& v) { return sum(v[0], {1}); }, {x})) << dev().str();
  EXPECT_TRUE(check([](const std::vector<Var>& v) { return mean(v[0], {0, 2}, true); }, {x})) << dev().str();
  EXPECT_TRUE(check([](const std::vector<Var>& v) { return sum(transpose(v[0], 0, 2)); }, {x})) << dev().str();
  EXPECT_TRUE(check([](const std::vector<Var>& v) { return logsumexp(v[0], {2}); }, {x})) << dev().str();
  EXPECT_TRUE(check([](const std::vector<Var>& v) { return max(v[0], 1).first; }, {d})) << dev().str();
  EXPECT_TRUE(check([](const std::vector<Var>& v) { return min(v[0], 2, true).first; }, {d})) << dev().str();
}

TEST_P(AutogradGradcheckOnDevice, ShapeOps) {
  const Tensor x = rnd({2, 3, 4}, gen_), y = rnd({2, 3, 4}, gen_);
  EXPECT_TRUE(check([](const std::vector<Var>& v) { return contiguous(permute(v[0], {2, 0, 1})); }, {x}))
      << dev().str();
  EXPECT_TRUE(check([](const std::vector<Var>& v) { return slice(v[0], 2, 0, 4, 2); }, {x})) << dev().str();
  EXPECT_TRUE(check([](const std::vector<Var>& v) { return cat({v[0], narrow(v[1], 2, 1, 2)}, 2); }, {x, y}))
      << dev().str();
  EXPECT_TRUE(check([](const std::vector<Var>& v) { return stack({v[0], v[1]}, 1); }, {x, y})) << dev().str();
  EXPECT_TRUE(check([](const std::vector<Var>& v) { return pad(v[0], {1, 2}, 0.5); }, {x})) << dev().str();
  EXPECT_TRUE(check([](const std::vector<Var>& v) { return repeat(v[0], {1, 2, 1}); }, {x})) << dev().str();
  EXPECT_TRUE(check([](const std::vector<Var>& v) { return mul(expand(select(v[0], 0, 1), {2, 3, 4}), v[1]); },
                    {x, y}))
      << dev().str();
}

TEST_P(AutogradGradcheckOnDevice, MatrixProducts) {
  const Tensor a = rnd({2, 3, 4}, gen_), b = rnd({4, 5}, gen_), c = rnd({5}, gen_);
  EXPECT_TRUE(check([](const std::vector<Var>& v) { return matmul(v[0], v[1]); }, {a, b})) << dev().str();
  EXPECT_TRUE(check([](const std::vector<Var>& v) { return matmul(transpose(v[0], 1, 2), transpose(v[1], 0, 1)); },
                    {a.transpose(1, 2).contiguous(), b.transpose(0, 1).contiguous()}))
      << dev().str();
  EXPECT_TRUE(check([](const std::vector<Var>& v) { return addmm(v[2], v[0], v[1]); }, {rnd({3, 4}, gen_), b, c}))
      << dev().str();
  EXPECT_TRUE(check([](const std::vector<Var>& v) { return linear(v[0], v[1], v[2]); },
                    {a, rnd({5, 4}, gen_), c}))
      << dev().str();
}

TEST_P(AutogradGradcheckOnDevice, SoftmaxLayerNormAndCrossEntropy) {
  const Tensor x = rnd({2, 3, 5}, gen_, -2, 2);
  for (int64_t dim : {-1, 1}) {
    EXPECT_TRUE(check([&](const std::vector<Var>& v) { return softmax(v[0], dim); }, {x})) << dev().str();
    EXPECT_TRUE(check([&](const std::vector<Var>& v) { return log_softmax(v[0], dim); }, {x})) << dev().str();
  }
  const Tensor allowed = on(Tensor::from_vector(std::vector<uint8_t>{1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1}, {3, 5}));
  EXPECT_TRUE(check([&](const std::vector<Var>& v) { return masked_softmax(v[0], allowed); }, {x})) << dev().str();
  EXPECT_TRUE(check([](const std::vector<Var>& v) { return layer_norm(v[0], v[1], v[2]); },
                    {x, rnd({5}, gen_, 0.5, 1.5), rnd({5}, gen_)}))
      << dev().str();
  const Tensor target = on(Tensor::from_vector(std::vector<int64_t>{3, -100, 0, 2, 4, 1}, {2, 3}));
  for (Reduction r : {Reduction::mean, Reduction::none}) {
    EXPECT_TRUE(check([&](const std::vector<Var>& v) { return cross_entropy(v[0], target, -100, r); }, {x}))
        << dev().str();
  }
}

TEST_P(AutogradGradcheckOnDevice, DropoutWithAFixedMask) {
  // f draws its mask from a generator seeded inside, so every evaluation sees the same mask.
  const Tensor x = rnd_away({4, 5}, gen_, {0}), r = rnd({4, 5}, gen_);
  EXPECT_TRUE(check(
      [](const std::vector<Var>& v) {
        Generator g(11);
        return dropout(transpose(v[0], 0, 1), 0.4, g, /*training=*/true);
      },
      {x}))
      << dev().str();
  EXPECT_TRUE(check(
      [](const std::vector<Var>& v) {
        Generator g(12);
        return dropout_add(v[1], relu_dropout(v[0], 0.3, g, true), 0.2, g, true);
      },
      {x, r}))
      << dev().str();
}

TEST_P(AutogradGradcheckOnDevice, IndexScanAndSort) {
  Generator g(5);
  const Tensor x = rnd({4, 3}, gen_);
  const Tensor rows = on(Tensor::from_vector(std::vector<int64_t>{2, 0, 2, 3, 2}, {5}));  // repeats
  const Tensor i1 = on(ops::randint({4, 5}, 0, 3, g)), src_i = on(ops::randint({4, 2}, 0, 3, g));
  EXPECT_TRUE(check([&](const std::vector<Var>& v) { return index_select(v[0], 0, rows); }, {x})) << dev().str();
  EXPECT_TRUE(check([&](const std::vector<Var>& v) { return gather(v[0], 1, i1); }, {x})) << dev().str();
  EXPECT_TRUE(check([&](const std::vector<Var>& v) { return scatter_add(v[0], 1, src_i, v[1]); },
                    {x, rnd({4, 2}, gen_)}))
      << dev().str();
  const Tensor tokens = on(Tensor::from_vector(std::vector<int64_t>{1, 3, 1, 0, 3, 3}, {2, 3}));
  EXPECT_TRUE(check([&](const std::vector<Var>& v) { return embedding(v[0], tokens); }, {x})) << dev().str();
  for (bool reverse : {false, true}) {
    EXPECT_TRUE(check([&](const std::vector<Var>& v) { return cumsum(transpose(v[0], 0, 1), 1, reverse); }, {x}))
        << dev().str();
  }
  EXPECT_TRUE(check([](const std::vector<Var>& v) { return sort(v[0], 1, true).first; }, {rnd_distinct({3, 6}, gen_)}))
      << dev().str();
}

TEST_P(AutogradGradcheckOnDevice, CausalLinearProductAndNormalise) {
  const int64_t B = 2, H = 2, N = 6, E = 3, M = 4;
  const Tensor q = rnd({B, H, N, E}, gen_, 0.1, 1), k = rnd({B, H, N, E}, gen_, 0.1, 1), v = rnd({B, H, N, M}, gen_);
  EXPECT_TRUE(check([](const std::vector<Var>& x) { return causal_linear_product(x[0], x[1], x[2]); }, {q, k, v}))
      << dev().str();
  // From a head split: (B, N, H, E) transposed to (B, H, N, E), strided.
  EXPECT_TRUE(check(
      [](const std::vector<Var>& x) { return causal_linear_product(transpose(x[0], 1, 2), transpose(x[1], 1, 2), x[2]); },
      {q.transpose(1, 2).contiguous(), k.transpose(1, 2).contiguous(), v}))
      << dev().str();
  EXPECT_TRUE(
      check([](const std::vector<Var>& x) { return causal_linear_normalise(x[0], x[1], x[2], 1e-6); }, {q, k, v}))
      << dev().str();
}

TEST_P(AutogradGradcheckOnDevice, LstmRecurrence) {
  const int64_t B = 2, T = 4, Hd = 3;
  const Tensor lengths = on(Tensor::from_vector(std::vector<int64_t>{4, 2}, {B}));
  for (bool reverse : {false, true}) {
    EXPECT_TRUE(check([&](const std::vector<Var>& x) { return lstm_recurrence(x[0], x[1], x[2], lengths, reverse); },
                      {rnd({B, T, 4 * Hd}, gen_), rnd({4 * Hd, Hd}, gen_, -0.5, 0.5), rnd({4 * Hd}, gen_)}))
        << (reverse ? "reverse" : "forward") << " on " << dev().str();
  }
}

INSTANTIATE_TEST_SUITE_P(Strict, AutogradGradcheckOnDevice, ::testing::Values(Device::strict()), lintra::testing::device_test_name);
INSTANTIATE_TEST_SUITE_P(Cuda, AutogradGradcheckOnDevice, ::testing::Values(Device::cuda(0)), lintra::testing::device_test_name);

}  // namespace
}  // namespace lintra
