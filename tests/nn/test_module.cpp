// test_module.cpp — Module bookkeeping: dotted parameter names in registration order, children,
// generators, train/eval recursion, to(DType), describe(), and registration errors.
#include <gtest/gtest.h>

#include "nn/dropout.h"
#include "nn/linear.h"
#include "nn/module.h"
#include "tests/nn/nn_test_util.h"

namespace lintra::nn {
namespace {

using lintra::testing::error_of;

struct Block : Module {
  explicit Block(Generator& gen) {
    fc = register_module("fc", std::make_shared<Linear>(3, 2, true, gen));
    drop = register_module("drop", std::make_shared<Dropout>(0.5, Generator(1, 2)));
  }
  std::string type_name() const override { return "Block"; }
  std::shared_ptr<Linear> fc;
  std::shared_ptr<Dropout> drop;
};

struct Net : Module {
  explicit Net(Generator& gen) {
    scale = register_parameter("scale", Var(Tensor::ones({2})));
    auto list = register_module("layers", std::make_shared<ModuleList>());
    for (int i = 0; i < 4; ++i) list->push_back(std::make_shared<Block>(gen));
    head = register_module("head", std::make_shared<Linear>(2, 5, false, gen));
  }
  std::string type_name() const override { return "Net"; }
  Var scale;
  std::shared_ptr<Linear> head;
};

TEST(NnModule, NamedParametersAreDottedInRegistrationOrder) {
  Generator gen(0);
  Net net(gen);
  std::vector<std::string> names;
  for (auto& [n, v] : net.named_parameters()) names.push_back(n);
  ASSERT_EQ(names.size(), 1u + 4 * 2 + 1);
  EXPECT_EQ(names[0], "scale");
  EXPECT_EQ(names[1], "layers.0.fc.weight");
  EXPECT_EQ(names[2], "layers.0.fc.bias");
  EXPECT_EQ(names[7], "layers.3.fc.weight");
  EXPECT_EQ(names[9], "head.weight");
  EXPECT_EQ(net.named_parameters("model")[7].first, "model.layers.3.fc.weight");
  EXPECT_EQ(net.parameters().size(), names.size());
  EXPECT_EQ(net.num_parameters(), 2 + 4 * (3 * 2 + 2) + 2 * 5);
  for (const Var& v : net.parameters()) EXPECT_TRUE(v.requires_grad());
}

TEST(NnModule, ParameterLookupSharesTheLayersVariable) {
  Generator gen(0);
  Net net(gen);
  Var w = net.parameter("layers.2.fc.weight");
  auto block = std::static_pointer_cast<Block>(net.named_children()[0].second->named_children()[2].second);
  EXPECT_EQ(w.impl(), block->fc->weight().impl());
  std::string msg = error_of([&] { net.parameter("layers.2.fc.wieght"); });
  EXPECT_HAS(msg, "no parameter named 'layers.2.fc.wieght'");
  EXPECT_HAS(msg, "layers.2.fc.weight");
}

TEST(NnModule, TrainEvalIsRecursive) {
  Generator gen(0);
  Net net(gen);
  EXPECT_TRUE(net.is_training());
  net.eval();
  EXPECT_FALSE(net.is_training());
  auto block = std::static_pointer_cast<Block>(net.named_children()[0].second->named_children()[1].second);
  EXPECT_FALSE(block->drop->is_training());
  net.train();
  EXPECT_TRUE(block->drop->is_training());
  // A child registered into a module in eval mode follows it.
  ModuleList list;
  list.eval();
  auto fc = std::make_shared<Linear>(2, 2, true, gen);
  EXPECT_TRUE(fc->is_training());
  list.push_back(fc);
  EXPECT_FALSE(fc->is_training());
}

TEST(NnModule, GeneratorsAreNamed) {
  Generator gen(0);
  Net net(gen);
  auto gens = net.named_generators();
  ASSERT_EQ(gens.size(), 4u);
  EXPECT_EQ(gens[1].first, "layers.1.drop.generator");
  EXPECT_EQ(gens[1].second->state().seed, 1u);
}

TEST(NnModule, ToConvertsParametersAndKeepsHandles) {
  Generator gen(0);
  Net net(gen);
  std::vector<float> before = net.head->weight().data().to_vector<float>();
  net.to(DType::f64);
  EXPECT_EQ(net.head->weight().dtype(), DType::f64);
  for (const Var& v : net.parameters()) EXPECT_EQ(v.dtype(), DType::f64);
  std::vector<double> after = net.head->weight().data().to_vector<double>();
  for (size_t i = 0; i < before.size(); ++i) EXPECT_EQ(double(before[i]), after[i]);
  Var y = net.head->forward(Var(Tensor::ones({1, 2}, DType::f64)));
  EXPECT_EQ(y.dtype(), DType::f64);
  net.to(DType::f32);
  EXPECT_EQ(net.parameter("layers.0.fc.bias").dtype(), DType::f32);
}

TEST(NnModule, DescribeShowsTheTreeWithShapes) {
  Generator gen(0);
  Net net(gen);
  std::string d = net.describe();
  EXPECT_HAS(d, "Net  scale [2]");
  EXPECT_HAS(d, "layers: ModuleList");
  EXPECT_HAS(d, "    3: Block");
  EXPECT_HAS(d, "fc: Linear(in=3, out=2, bias)  weight [2, 3]  bias [2]");
  EXPECT_HAS(d, "drop: Dropout(p=0.5)");
  EXPECT_HAS(d, "head: Linear(in=2, out=5)  weight [5, 2]");
  EXPECT_HAS(d, "44 parameters (10 tensors)");
}

TEST(NnModule, ZeroGradDropsGradients) {
  Generator gen(0);
  Linear fc(3, 2, true, gen);
  sum(fc.forward(Var(Tensor::ones({4, 3})))).backward();
  EXPECT_TRUE(fc.weight().grad().defined());
  fc.zero_grad();
  EXPECT_FALSE(fc.weight().grad().defined());
  EXPECT_FALSE(fc.bias().grad().defined());
}

TEST(NnModule, RegistrationErrors) {
  struct Bad : Module {
    std::string type_name() const override { return "Bad"; }
    using Module::register_parameter;
  } m;
  m.register_parameter("w", Var(Tensor::ones({2})));
  EXPECT_HAS(error_of([&] { m.register_parameter("w", Var(Tensor::ones({2}))); }), "'w' is already registered");
  EXPECT_HAS(error_of([&] { m.register_parameter("a.b", Var(Tensor::ones({2}))); }), "contain no '.'");
  EXPECT_HAS(error_of([&] { m.register_parameter("i", Var(Tensor::arange(3))); }), "must be floating");
  EXPECT_HAS(error_of([&] { m.register_module("w", std::make_shared<ModuleList>()); }), "already registered");
}

}  // namespace
}  // namespace lintra::nn
