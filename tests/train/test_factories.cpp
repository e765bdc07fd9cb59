// test_factories.cpp — the data factory (train/factories.h): data.eval_size draws a fixed, seeded subset
// of the evaluation split — the same samples for every run seed, spread over the split rather than
// its first images — and data.train_size a prefix; sizes beyond the split are errors naming the key.
#include <gtest/gtest.h>

#include <filesystem>

#include "data/cache.h"
#include "tests/test_util.h"
#include "train/experiment_config.h"
#include "train/factories.h"

namespace lintra::train {
namespace {

Config mnist(const std::vector<std::string>& overrides) {
  std::vector<std::string> all = {"data.name=mnist", "model.type=image"};
  all.insert(all.end(), overrides.begin(), overrides.end());
  return load_experiment_config({}, all);
}

std::vector<uint8_t> pixels(const data::Dataset& d, int64_t i) { return d.get(i).bytes; }

TEST(TrainFactories, EvalSizeIsAFixedSeededSubsetSpreadOverTheSplit) {
  if (!std::filesystem::exists(data::data_root() / "mnist"))
    GTEST_SKIP() << "MNIST is not in the data cache (lintra data fetch mnist)";
  const DataSplits full = build_data(mnist({}), true);
  const DataSplits a = build_data(mnist({"data.eval_size=100", "seed=1"}), true);
  const DataSplits b = build_data(mnist({"data.eval_size=100", "seed=7"}), true);
  ASSERT_EQ(a.eval->size(), 100);
  EXPECT_EQ(a.test->size(), 100);
  EXPECT_NE(a.eval->name().find("[100 of 10000"), std::string::npos) << a.eval->name();
  int same_as_prefix = 0;
  for (int64_t i = 0; i < 100; ++i) {
    EXPECT_EQ(pixels(*a.eval, i), pixels(*b.eval, i)) << "the subset depends on the run's seed at " << i;
    same_as_prefix += pixels(*a.eval, i) == pixels(*full.eval, i);
  }
  EXPECT_LT(same_as_prefix, 50) << "the subset looks like the split's first images";
  // data.train_size stays a prefix of the training split.
  const DataSplits p = build_data(mnist({"data.train_size=10"}));
  for (int64_t i = 0; i < 10; ++i) EXPECT_EQ(pixels(*p.train, i), pixels(*full.train, i));
  EXPECT_HAS(lintra::testing::error_of([] { build_data(mnist({"data.eval_size=20000"})); }), "data.eval_size");
}

}  // namespace
}  // namespace lintra::train
