// test_model_size.cpp — the size of a config's model before it is built (train/model_size.h): the
// parameter count equals the built model's for every model type and the options that change it
// (this keeps the formulas in step with nn/), weights count the optimizer's slots, activations grow
// with batch and length, and a model larger than the memory available is refused naming its keys.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/test_util.h"
#include "train/experiment_config.h"
#include "train/factories.h"
#include "train/model_size.h"

namespace lintra::train {
namespace {

using lintra::testing::error_of;

Config config(const std::vector<std::string>& overrides) {
  Config raw;
  for (const std::string& o : overrides) apply_override(raw, o, nullptr);
  return validate_section(raw, experiment_schema());
}

// Small widths (the built models must stay cheap) with every option that changes the count.
const std::vector<std::vector<std::string>>& cases() {
  static const std::vector<std::vector<std::string>> c = {
      {"+model.type=copy", "+model.layers=2", "+model.heads=2", "+model.d_query=4"},
      {"+model.type=copy", "+model.layers=1", "+model.heads=3", "+model.d_query=5", "+model.positional=add"},
      {"+model.type=copy", "+model.layers=1", "+model.heads=2", "+model.d_query=3", "+model.d_ff=7"},
      {"+model.type=image", "+model.layers=2", "+model.heads=2", "+model.d_query=4", "+model.mixtures=3"},
      {"+model.type=image", "+model.layers=1", "+model.heads=1", "+model.d_query=8", "+model.attention.type=reformer"},
      {"+model.type=image", "+model.layers=1", "+model.heads=2", "+model.d_query=4", "+model.attention.type=causal-linear"},
      {"+model.type=speech", "+model.layers=2", "+model.heads=2", "+model.d_query=4", "+model.pre_norm=true"},
      {"+model.type=bilstm", "+model.lstm_hidden=5", "+model.lstm_layers=3"},
      {"+model.type=bilstm", "+model.lstm_hidden=7", "+model.lstm_layers=1"},
  };
  return c;
}

TEST(TrainModelSize, TheParameterCountEqualsTheBuiltModels) {
  for (const auto& overrides : cases()) {
    const Config cfg = config(overrides);
    EXPECT_EQ(estimate_model_size(cfg, 8).parameters, double(build_model(cfg)->num_parameters()))
        << to_yaml(cfg.section("model"));
  }
}

TEST(TrainModelSize, WeightsCountGradientsAndTheOptimizersSlots) {
  const ModelSize radam = estimate_model_size(config({"+optim.name=radam"}), 16);
  EXPECT_EQ(radam.optimizer_slots, 2);
  EXPECT_EQ(radam.weight_bytes, radam.parameters * 4 * 4);
  EXPECT_EQ(estimate_model_size(config({"+optim.name=sgd"}), 16).optimizer_slots, 0);
  EXPECT_EQ(estimate_model_size(config({"+optim.name=sgd", "+optim.momentum=0.9"}), 16).optimizer_slots, 1);
  const ModelSize a = estimate_model_size(config({"+data.batch_size=8"}), 16);
  EXPECT_GT(estimate_model_size(config({"+data.batch_size=16"}), 16).activation_bytes, 1.9 * a.activation_bytes);
  EXPECT_GT(estimate_model_size(config({"+data.batch_size=8"}), 32).activation_bytes, 2 * a.activation_bytes);
  EXPECT_HAS(a.describe(), "parameters; training needs about");
  EXPECT_HAS(a.describe(), "activations of a batch of 8 × 16");
}

// model.layers=100000 once built 1.27 billion parameters in silence for over a minute.
TEST(TrainModelSize, AModelLargerThanTheMemoryIsRefusedNamingItsKeys) {
  const Config big = config({"+model.layers=100000", "+model.heads=2", "+model.d_query=16"});  // smoke widths
  const ModelSize s = estimate_model_size(big, 128);
  EXPECT_GT(s.parameters, 1.2e9);
  const std::string msg = error_of([&] { check_fits_in_memory(big, s, 8.0 * (1 << 30)); });
  EXPECT_HAS(msg, "1,27");  // the count, grouped
  EXPECT_HAS(msg, "and this machine has 8.0 GiB available");
  EXPECT_HAS(msg, "model.layers = 100000 (command line override `+model.layers=100000`)");
  EXPECT_HAS(msg, "data.batch_size = 64 (schema default)");
  EXPECT_NO_THROW(check_fits_in_memory(big, s, 2 * s.total_bytes()));
  EXPECT_HAS(error_of([&] {
               const Config lstm = config({"+model.type=bilstm", "+model.lstm_hidden=100000"});
               check_fits_in_memory(lstm, estimate_model_size(lstm, 500), 1e9);
             }),
             "model.lstm_hidden = 100000");
  // Sizes past int64 stay numbers.
  const Config huge = config({"+model.layers=1000000000", "+model.heads=1000000", "+model.d_query=1000000"});
  EXPECT_GT(estimate_model_size(huge, 8).parameters, 1e30);
  EXPECT_HAS(error_of([&] { check_fits_in_memory(huge, estimate_model_size(huge, 8), 1e12); }), "e+");
}

TEST(TrainModelSize, TheMachineHasSomeMemoryAvailable) {
  const double avail = available_memory_bytes();
  EXPECT_GT(avail, 16.0 * (1 << 20));
  EXPECT_EQ(human_bytes(1536), "1.5 KiB");
  EXPECT_EQ(human_bytes(12), "12 B");
}

}  // namespace
}  // namespace lintra::train
