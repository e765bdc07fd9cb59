// test_gradcheck_nn.cpp — invariant: the backward of the fused nn ops (softmax and log_softmax over
// the last, a middle and the first dim; masked_softmax with a broadcast mask and an empty row, on the
// CPU and on the strict device; layer_norm for x, γ and β; dropout with a fixed mask;
// cross_entropy with mean/sum/none reductions and ignore_index rows) agrees with central finite
// differences (gradcheck, float64), including non-contiguous inputs; float32 dropout's one-pass kernel
// equals that mask form bit for bit.
// dropout: gradcheck evaluates f many times, so f builds its Generator from a fixed seed inside:
// every evaluation draws the same mask. Tolerances: gradcheck's defaults (autograd_test_util.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>

#include "tests/autograd/autograd_test_util.h"

namespace lintra {
namespace {

using testing::gradcheck_ok;
using testing::rnd;

TEST(AutogradGradcheckNn, SoftmaxAndLogSoftmaxOverEveryDim) {
  Generator gen(151);
  Tensor x = rnd({2, 3, 4}, gen, -2, 2);
  for (int64_t dim : {-1, 1, 0, 2}) {
    EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return softmax(v[0], dim); }, {x})) << "dim " << dim;
    EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return log_softmax(v[0], dim); }, {x})) << "dim " << dim;
    EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return softmax(permute(v[0], {2, 0, 1}), dim); }, {x}))
        << "dim " << dim << " permuted";
    EXPECT_TRUE(gradcheck_ok(
        [&](const std::vector<Var>& v) { return log_softmax(slice(v[0], 2, 0, 4, 2), dim); }, {x}))
        << "dim " << dim << " sliced";
  }
}

TEST(AutogradGradcheckNn, MaskedSoftmax) {
  Generator gen(155);
  Tensor x = rnd({2, 3, 5}, gen, -2, 2);
  Tensor allowed = Tensor::from_vector(std::vector<uint8_t>{1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1}, {3, 5});
  for (Device d : {Device::cpu, Device::strict()}) {
    const Tensor a = allowed.to(d);
    EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return masked_softmax(v[0], a); }, {x.to(d)}))
        << d.str();
    EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return masked_softmax(transpose(v[0], 0, 1), a); },
                             {rnd({3, 2, 5}, gen, -2, 2).to(d)}))
        << d.str() << " transposed";
  }
  // The empty row is 0, and so is its gradient.
  Var xv(x, true);
  Var y = masked_softmax(xv, allowed);
  EXPECT_EQ(ops::max_abs_diff(y.data().select(1, 1), Tensor::zeros({2, 5}, DType::f64)), 0.0);
  sum(mul(y, Var(rnd({2, 3, 5}, gen)))).backward();
  EXPECT_EQ(ops::max_abs_diff(xv.grad().select(1, 1), Tensor::zeros({2, 5}, DType::f64)), 0.0);
}

TEST(AutogradGradcheckNn, LayerNorm) {
  Generator gen(152);
  Tensor x = rnd({2, 3, 5}, gen, -2, 2), g = rnd({5}, gen, 0.5, 1.5), b = rnd({5}, gen);
  EXPECT_TRUE(gradcheck_ok([](const std::vector<Var>& v) { return layer_norm(v[0], v[1], v[2]); }, {x, g, b}));
  Tensor xt = rnd({5, 3}, gen, -2, 2);  // used transposed: (3, 5)
  EXPECT_TRUE(gradcheck_ok(
      [](const std::vector<Var>& v) { return layer_norm(transpose(v[0], 0, 1), v[1], v[2], 1e-3); }, {xt, g, b}));
  Tensor x1 = rnd({5}, gen, -2, 2);  // one row
  EXPECT_TRUE(gradcheck_ok([](const std::vector<Var>& v) { return square(layer_norm(v[0], v[1], v[2])); },
                           {x1, g, b}));
}

TEST(AutogradGradcheckNn, DropoutWithAFixedMask) {
  Generator gen(153);
  Tensor x = rnd({4, 5}, gen);
  auto f = [](const std::vector<Var>& v) {
    Generator g(7);  // the same mask at every evaluation
    return dropout(v[0], 0.3, g, /*training=*/true);
  };
  EXPECT_TRUE(gradcheck_ok(f, {x}));
  // The mask really drops and scales: values are 0 or x/(1 − p), and some of each occur.
  Var y = f({Var(x)});
  int zeros = 0, kept = 0;
  std::vector<double> xv = x.to_vector<double>(), yv = y.data().to_vector<double>();
  for (size_t i = 0; i < xv.size(); ++i) {
    if (yv[i] == 0) ++zeros;
    else if (std::abs(yv[i] - xv[i] / 0.7) < 1e-15) ++kept;  // x·(1/0.7) vs x/0.7: ≤ 1 ulp of ≤ 1.43
  }
  EXPECT_EQ(zeros + kept, 20);
  EXPECT_GT(zeros, 0);
  EXPECT_GT(kept, 0);
  // Not training, or p = 0: the identity (the same Var).
  Generator g(1);
  Var in(x, true);
  EXPECT_EQ(dropout(in, 0.5, g, false).impl(), in.impl());
  EXPECT_EQ(dropout(in, 0.0, g, true).impl(), in.impl());
  EXPECT_TRUE(gradcheck_ok(
      [](const std::vector<Var>& v) {
        Generator g2(9);
        return dropout(transpose(v[0], 0, 1), 0.5, g2, true);
      },
      {x}));
}

// Float32 dropout runs in one pass (ops::apply_dropout, no mask in memory); its output and its
// gradient must be the float64-checked form's above — x · mask and g · mask with mask =
// bernoulli(1 − p) / (1 − p) from the same generator state — bit for bit, for a strided input, on the
// CPU and on the strict device (whose host loops fail).
TEST(AutogradGradcheckNn, DropoutInFloat32IsTheMaskFormForwardAndBackward) {
  for (Device d : {Device::cpu, Device::strict()}) {
    Generator gen(156);
    const Tensor x = Tensor::uniform({6, 9, 5}, gen, -2, 2).to(d), g = Tensor::uniform({9, 6, 5}, gen, -1, 1).to(d);
    Generator a(41), b(41);
    Var xv(x, true);
    Var y = dropout(transpose(xv, 0, 1), 0.25, a, /*training=*/true);
    sum(mul(y, Var(g))).backward();
    const Tensor mask = ops::mul(ops::bernoulli({9, 6, 5}, 0.75, b, DType::f32, d), 1 / 0.75);
    EXPECT_EQ(a.state(), b.state()) << d.str();
    EXPECT_EQ(ops::max_abs_diff(y.data().cpu(), ops::mul(x.transpose(0, 1), mask).cpu()), 0.0) << d.str();
    EXPECT_EQ(ops::max_abs_diff(xv.grad().cpu(), ops::mul(g, mask).transpose(0, 1).cpu()), 0.0) << d.str();
  }
}

// relu_dropout and dropout_add: float64 takes the composed form (checked by gradcheck here, with a
// fixed mask and x away from relu's kink); float32 runs the one-pass kernel, whose output and
// gradients must be the composed form's bit for bit, strided, on the CPU and the strict device.
TEST(AutogradGradcheckNn, ReluDropoutAndDropoutAdd) {
  Generator gen(157);
  const Tensor x = rnd({4, 5}, gen, 0.1, 2);  // |x| ≥ 0.1, signs at random
  const Tensor xs = ops::where(ops::gt(rnd({4, 5}, gen, -1, 1), 0.0), x, ops::neg(x)), r = rnd({4, 5}, gen);
  EXPECT_TRUE(gradcheck_ok(
      [](const std::vector<Var>& v) {
        Generator g(7);
        return relu_dropout(v[0], 0.3, g, /*training=*/true);
      },
      {xs}));
  EXPECT_TRUE(gradcheck_ok(
      [](const std::vector<Var>& v) {
        Generator g(8);
        return dropout_add(v[0], transpose(v[1], 0, 1), 0.4, g, /*training=*/true);
      },
      {r.transpose(0, 1).contiguous(), r}));
  Generator g(1);
  EXPECT_EQ(ops::max_abs_diff(relu_dropout(Var(xs), 0.5, g, false).data(), ops::relu(xs)), 0.0);
  EXPECT_EQ(ops::max_abs_diff(dropout_add(Var(r), Var(xs), 0.5, g, false).data(), ops::add(r, xs)), 0.0);
  EXPECT_THROW(dropout_add(Var(r), Var(r.transpose(0, 1)), 0.5, g, true), Error);

  const auto same_bits = [](const Tensor& p, const Tensor& q) {
    const std::vector<float> a = p.cpu().to_vector<float>(), b = q.cpu().to_vector<float>();
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](float u, float v) {
             return std::bit_cast<uint32_t>(u) == std::bit_cast<uint32_t>(v);
           });
  };
  for (Device d : {Device::cpu, Device::strict()}) {
    const Tensor x32 = Tensor::uniform({6, 9, 5}, gen, -2, 2).to(d), r32 = Tensor::uniform({9, 6, 5}, gen, -1, 1).to(d);
    const Tensor g32 = Tensor::uniform({9, 6, 5}, gen, -1, 1).to(d);
    Generator a(41), b(41);
    Var xa(x32, true), xb(x32, true), ra(r32, true), rb(r32, true);
    Var fused = dropout_add(ra, relu_dropout(transpose(xa, 0, 1), 0.25, a, true), 0.5, a, true);
    Var composed = add(rb, dropout(dropout(relu(transpose(xb, 0, 1)), 0.25, b, true), 0.5, b, true));
    sum(mul(fused, Var(g32))).backward();
    sum(mul(composed, Var(g32))).backward();
    EXPECT_EQ(a.state(), b.state()) << d.str();
    EXPECT_TRUE(same_bits(fused.data(), composed.data())) << d.str();
    EXPECT_TRUE(same_bits(xa.grad(), xb.grad())) << d.str();
    EXPECT_TRUE(same_bits(ra.grad(), rb.grad())) << d.str();
  }
}

TEST(AutogradGradcheckNn, CrossEntropy) {
  Generator gen(154);
  Tensor logits = rnd({5, 4}, gen, -2, 2);
  Tensor target = Tensor::from_vector(std::vector<int64_t>{3, -100, 0, 2, 0}, {5});  // row 1 ignored
  for (Reduction r : {Reduction::mean, Reduction::sum, Reduction::none}) {
    EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return cross_entropy(v[0], target, -100, r); },
                             {logits}))
        << int(r);
    // A custom ignore_index, and logits entering transposed.
    Tensor t2 = Tensor::from_vector(std::vector<int64_t>{1, 1, 3, 2, 0}, {5});
    Tensor lt = rnd({4, 5}, gen, -2, 2);
    EXPECT_TRUE(gradcheck_ok(
        [&](const std::vector<Var>& v) { return cross_entropy(transpose(v[0], 0, 1), t2, 1, r); }, {lt}))
        << int(r) << " ignore_index 1, transposed";
  }
  // 3-d logits (B, T, C) with targets (B, T).
  Tensor l3 = rnd({2, 3, 4}, gen, -2, 2);
  Tensor t3 = Tensor::from_vector(std::vector<int64_t>{0, 3, -100, 1, 2, 2}, {2, 3});
  for (Reduction r : {Reduction::mean, Reduction::none})
    EXPECT_TRUE(gradcheck_ok([&](const std::vector<Var>& v) { return cross_entropy(v[0], t3, -100, r); }, {l3}))
        << int(r) << " 3-d";
  // Every row ignored: the mean is 0, with zero gradient.
  Tensor none = Tensor::full({5}, -100, DType::i64);
  Var lv(logits, true);
  Var loss = cross_entropy(lv, none);
  EXPECT_EQ(loss.item(), 0);
  loss.backward();
  EXPECT_EQ(ops::max_abs_diff(lv.grad(), Tensor::zeros({5, 4}, DType::f64)), 0);
}

}  // namespace
}  // namespace lintra
