// test_registry.cpp — the attention registry (names, typed parameter specs, defaults,
// errors that list what is valid) and the mask types.
#include <gtest/gtest.h>

#include "nn/attention/masks.h"
#include "nn/attention/registry.h"
#include "tests/nn/nn_test_util.h"

namespace lintra::nn {
namespace {

using lintra::testing::error_of;

AttentionContext context() { return {.query_dim = 4, .value_dim = 4, .n_heads = 2, .generator = Generator(1, 1)}; }

TEST(NnAttentionRegistry, BuiltinsAreRegistered) {
  const AttentionRegistry& r = builtin_attention_registry();
  for (const char* name : {"softmax", "linear", "causal-linear"}) {
    EXPECT_TRUE(r.contains(name)) << name;
    auto inner = r.create(name, {}, context());
    EXPECT_EQ(inner->variant(), name);
  }
  EXPECT_EQ(&builtin_attention_registry(), &r);  // one process-wide registry
}

TEST(NnAttentionRegistry, DefaultsAndGivenValues) {
  const AttentionRegistry& r = builtin_attention_registry();
  AttentionParams p = r.resolve("softmax", {});
  EXPECT_DOUBLE_EQ(p.get_double("attention_dropout"), 0.1);
  EXPECT_FALSE(p.has("softmax_temp"));  // optional, no default
  p = r.resolve("softmax", {{"softmax_temp", 0.5}, {"attention_dropout", int64_t(0)}});
  EXPECT_DOUBLE_EQ(p.get_double("softmax_temp"), 0.5);
  EXPECT_DOUBLE_EQ(p.get_double("attention_dropout"), 0.0);  // an integer is accepted for a real
  EXPECT_DOUBLE_EQ(r.resolve("causal-linear", {}).get_double("eps"), 1e-6);
  EXPECT_DOUBLE_EQ(r.resolve("linear", {}).get_double("eps"), 1e-6);
}

TEST(NnAttentionRegistry, UnknownVariantListsTheValidOnes) {
  std::string msg = error_of([] { builtin_attention_registry().create("flash", {}, context()); });
  EXPECT_HAS(msg, "unknown attention variant 'flash'");
  EXPECT_HAS(msg, "softmax, linear, causal-linear");
}

TEST(NnAttentionRegistry, UnknownParameterListsTheVariantsParameters) {
  std::string msg = error_of([] { builtin_attention_registry().create("softmax", {{"chunk_size", 32}}, context()); });
  EXPECT_HAS(msg, "attention 'softmax' has no parameter 'chunk_size'");
  EXPECT_HAS(msg, "softmax_temp (real in [0, inf], optional");
  EXPECT_HAS(msg, "attention_dropout (real in [0, 1), default 0.1");
  msg = error_of([] { builtin_attention_registry().resolve("linear", {{"attention_dropout", 0.1}}); });
  EXPECT_HAS(msg, "attention 'linear' has no parameter 'attention_dropout'; its parameters are: eps");
}

TEST(NnAttentionRegistry, WrongTypeOrRangeIsAnError) {
  const AttentionRegistry& r = builtin_attention_registry();
  EXPECT_HAS(error_of([&] { r.resolve("softmax", {{"attention_dropout", std::string("high")}}); }),
             "parameter 'attention_dropout' expects a real, got string 'high'");
  EXPECT_HAS(error_of([&] { r.resolve("softmax", {{"attention_dropout", 1.0}}); }),
             "'attention_dropout' = 1 is out of range (real in [0, 1)");
  EXPECT_HAS(error_of([&] { r.resolve("causal-linear", {{"eps", -1e-3}}); }), "out of range");
  EXPECT_HAS(error_of([&] { r.resolve("linear", {{"eps", true}}); }), "expects a real, got bool true");
}

TEST(NnAttentionRegistry, TypedSpecsOfEveryKind) {
  AttentionRegistry r;
  struct Dummy : InnerAttention {
    Dummy() : InnerAttention("dummy") {}
    MaskSupport mask_support() const override { return {}; }
    Var attend(const Var& q, const Var&, const Var&, const AttentionMasks&) override { return q; }
  };
  AttentionParams seen("dummy", {});
  r.add(
      "dummy",
      [&](const AttentionParams& p, const AttentionContext&) {
        seen = p;
        return std::make_shared<Dummy>();
      },
      {{"chunk_size", ParamSpec::integer(32, 1, 1024, "tokens per chunk")},
       {"shared", ParamSpec::boolean(true)},
       {"map", ParamSpec::string("elu", {"elu", "relu"})},
       {"scale", ParamSpec::real(1.5)}});
  r.create("dummy", {{"chunk_size", 64}, {"map", "relu"}}, context());
  EXPECT_EQ(seen.get_int("chunk_size"), 64);
  EXPECT_TRUE(seen.get_bool("shared"));
  EXPECT_EQ(seen.get_string("map"), "relu");
  EXPECT_DOUBLE_EQ(seen.get_double("scale"), 1.5);
  EXPECT_HAS(error_of([&] { r.resolve("dummy", {{"chunk_size", 2.5}}); }), "expects an integer, got real 2.5");
  EXPECT_HAS(error_of([&] { r.resolve("dummy", {{"chunk_size", 0}}); }), "= 0 is out of range (integer in [1, 1024]");
  EXPECT_HAS(error_of([&] { r.resolve("dummy", {{"map", "tanh"}}); }), "'map' = 'tanh' is not one of elu, relu");
  EXPECT_HAS(error_of([&] { r.resolve("dummy", {{"shared", 1}}); }), "expects a bool");
  EXPECT_HAS(error_of([&] { seen.get_string("chunk_size"); }), "is not a string");
  EXPECT_HAS(error_of([&] { r.add("dummy", [](auto&, auto&) { return std::make_shared<Dummy>(); }); }),
             "already registered");
  EXPECT_HAS(error_of([&] {
               r.add("bad-default", [](auto&, auto&) { return std::make_shared<Dummy>(); },
                     {{"n", ParamSpec::integer(0, 1, 4)}});
             }),
             "out of range");
  EXPECT_HAS(error_of([&] { r.create("dummy", {}, AttentionContext{}); }), "positive query_dim");
  EXPECT_EQ(r.names(), std::vector<std::string>({"dummy"}));
}

TEST(NnAttentionMasks, Matrices) {
  Tensor tri = TriangularCausalMask(3).bool_matrix();
  EXPECT_EQ(tri.to_vector<uint8_t>(), std::vector<uint8_t>({1, 0, 0, 1, 1, 0, 1, 1, 1}));
  Tensor add = TriangularCausalMask(2).additive_matrix(DType::f64);
  EXPECT_EQ(add.at({1, 0}), 0.0);
  EXPECT_EQ(add.at({0, 1}), -INFINITY);
  LengthMask lm(Tensor::from_vector(std::vector<int64_t>{2, 0, 3}, {3}), 3);
  EXPECT_EQ(lm.bool_matrix().to_vector<uint8_t>(), std::vector<uint8_t>({1, 1, 0, 0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(lm.float_matrix(DType::f64).at({0, 1}), 1.0);
  EXPECT_FALSE(lm.all_full());
  EXPECT_EQ(FullMask(2, 3).bool_matrix().to_vector<uint8_t>(), std::vector<uint8_t>(6, 1));
  EXPECT_HAS(error_of([] { LengthMask(Tensor::from_vector(std::vector<int64_t>{4}, {1}), 3); }),
             "length 4 of sequence 0 is outside [0, 3]");
  EXPECT_HAS(error_of([] { LengthMask(Tensor::ones({2}), 3); }), "must be int64");
}

TEST(NnAttentionMasks, AllowedCombinesCausalAndLengths) {
  EXPECT_FALSE(AttentionMasks::full().allowed(2, 3, 4).defined());
  Tensor c = AttentionMasks::causal().allowed(2, 3, 3);
  EXPECT_EQ(c.shape(), Shape({1, 1, 3, 3}));
  AttentionMasks m = AttentionMasks::causal().with_key_lengths(Tensor::from_vector(std::vector<int64_t>{3, 1}, {2}));
  EXPECT_EQ(m.describe(), "causal mask + key lengths");
  Tensor both = m.allowed(2, 3, 3);
  EXPECT_EQ(both.shape(), Shape({2, 1, 3, 3}));
  EXPECT_EQ(both.to_vector<uint8_t>(),
            std::vector<uint8_t>({1, 0, 0, 1, 1, 0, 1, 1, 1, /* b = 1, length 1 */ 1, 0, 0, 1, 0, 0, 1, 0, 0}));
  EXPECT_HAS(error_of([] { AttentionMasks::causal().allowed(1, 3, 4); }), "as many queries as keys");
  EXPECT_HAS(error_of([&] { m.allowed(3, 3, 3); }), "key lengths must have shape (3)");
}

}  // namespace
}  // namespace lintra::nn
