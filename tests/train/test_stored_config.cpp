// test_stored_config.cpp — resuming with another config (train/stored_config.h): train.steps and
// train.time_budget may grow (a finished run continues), device may change, everything else is refused naming every key
// with both values, and lowering either of the two is refused too.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/test_util.h"
#include "train/experiment_config.h"
#include "train/stored_config.h"

namespace lintra::train {
namespace {

using lintra::testing::error_of;

Config resolved(const std::vector<std::string>& overrides) {
  Config raw;
  for (const std::string& o : overrides) apply_override(raw, o, nullptr);
  return validate_section(raw, experiment_schema());
}

std::vector<RaisedKey> compare(const std::vector<std::string>& before, const std::vector<std::string>& after) {
  return compare_stored_config(resolved(before), resolved(after), "runs/x");
}

TEST(TrainStoredConfig, TheSameConfigRaisesNothing) {
  EXPECT_TRUE(compare({"+train.steps=10"}, {"+train.steps=10"}).empty());
}

TEST(TrainStoredConfig, StepsAndTimeBudgetMayGrow) {
  std::vector<RaisedKey> r = compare({"+train.steps=10", "+train.time_budget=5"}, {"+train.steps=20", "+train.time_budget=7.5"});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].key, "train.steps");
  EXPECT_EQ(r[0].before, "10");
  EXPECT_EQ(r[0].after, "20");
  EXPECT_EQ(r[1].key, "train.time_budget");
  EXPECT_EQ(r[1].after, "7.5");
  // 0 is no budget: lifting one is growth.
  EXPECT_EQ(compare({"+train.time_budget=5"}, {"+train.time_budget=0"}).size(), 1u);
}

// A run trained on one device resumes on another (checkpoints hold CPU tensors), either way.
TEST(TrainStoredConfig, TheDeviceMayChangeEitherWay) {
  std::vector<RaisedKey> r = compare({"+device=strict:0"}, {"+device=cpu"});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].key, "device");
  EXPECT_EQ(r[0].before, "strict:0");
  EXPECT_EQ(r[0].after, "cpu");
  EXPECT_EQ(compare({}, {"+device=cuda:1"}).size(), 1u);  // from the default, cpu
  EXPECT_TRUE(compare({"+device=cpu"}, {}).empty());
}

TEST(TrainStoredConfig, LoweringStepsOrBudgetOrAddingABudgetIsRefused) {
  EXPECT_HAS(error_of([] { compare({"+train.steps=20"}, {"+train.steps=10"}); }),
             "train.steps: `20` in the run directory, `10` now (a resumed run may only raise it)");
  EXPECT_HAS(error_of([] { compare({"+train.time_budget=5"}, {"+train.time_budget=2"}); }), "train.time_budget: `5.0`");
  EXPECT_HAS(error_of([] { compare({}, {"+train.time_budget=2"}); }), "train.time_budget: `0.0` in the run directory");
}

TEST(TrainStoredConfig, EveryOtherDifferenceIsRefusedNamingEachKey) {
  const std::string msg =
      error_of([] { compare({"+model.layers=1", "+optim.lr=0.1"}, {"+model.layers=2", "+optim.lr=0.2", "+train.steps=5000"}); });
  EXPECT_HAS(msg, "runs/x: the run directory was made with another config (2 key(s) differ)");
  EXPECT_HAS(msg, "model.layers: `1` in the run directory, `2` now");
  EXPECT_HAS(msg, "optim.lr: `0.1` in the run directory, `0.2` now");
  EXPECT_EQ(msg.find("train.steps"), msg.rfind("train.steps and train.time_budget may be raised")) << msg;
  EXPECT_HAS(msg, "lintra train runs/x/config.yaml");
  // A key present on one side only (an attention parameter of another variant).
  EXPECT_HAS(error_of([] { compare({}, {"+model.attention.type=reformer"}); }), "model.attention.chunk_size: absent in the run directory");
}

}  // namespace
}  // namespace lintra::train
