// test_experiment_config.cpp — the training config's checks beyond single keys
// (train/experiment_config.h): model.type against data.name, the experiment name that makes the run
// directory, train.time_budget, the device, the matmul precision; and every committed config under configs/
// still loads (none relies on an empty value meaning the default).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/test_util.h"
#include "train/experiment_config.h"

namespace lintra::train {
namespace {

namespace fs = std::filesystem;
using lintra::testing::error_of;

const std::string kConfigs = std::string(LINTRA_SOURCE_DIR) + "/configs";

Config load(const std::vector<std::string>& overrides) {
  return load_experiment_config({kConfigs + "/copy/smoke/softmax.yaml"}, overrides);
}

TEST(TrainExperimentConfig, ModelTypeAndDataNameMustFitNamingBothKeysAndThePairs) {
  const std::string msg = error_of([] { load({"model.type=image"}); });
  EXPECT_HAS(msg, "model.type 'image' (command line override `model.type=image`) cannot train on data.name 'copy' (");
  EXPECT_HAS(msg, "/base.yaml:9): image models read image pixels");
  EXPECT_HAS(msg, "valid pairs: model.type copy with data.name copy; model.type image with data.name mnist, "
                  "fashion-mnist, cifar10, photos32; model.type speech or bilstm with data.name espeak-speech, speech");
  EXPECT_HAS(error_of([] { load({"model.type=bilstm", "data.name=mnist"}); }),
             "model.type 'bilstm' (command line override `model.type=bilstm`) cannot train on data.name 'mnist'");
  EXPECT_HAS(error_of([] { load({"data.name=espeak-speech"}); }), "copy models read copy-task tokens");
  EXPECT_NO_THROW(load({"model.type=speech", "data.name=espeak-speech"}));
  EXPECT_NO_THROW(load({"model.type=image", "data.name=photos32"}));
}

TEST(TrainExperimentConfig, AnExperimentNameMustStayInsideRuns) {
  for (const char* bad : {"experiment=../../x", "experiment=a/../../b", "experiment=/tmp/x", "experiment=a//b",
                          "experiment=./a", "experiment=a/"}) {
    const std::string msg = error_of([&] { check_experiment_name(load({bad})); });
    EXPECT_HAS(msg, "would put the run directory outside runs/") << bad;
    EXPECT_HAS(msg, "command line override") << bad;
  }
  EXPECT_HAS(error_of([] { check_experiment_name(load({"experiment=\"\""})); }), "experiment: the name is empty");
  EXPECT_NO_THROW(check_experiment_name(load({"experiment=copy/cpu-1.2_x"})));
}

TEST(TrainExperimentConfig, TimeBudgetIsSecondsAndZeroMeansNone) {
  EXPECT_EQ(train_options(load({})).time_budget, 0.0);
  EXPECT_EQ(train_options(load({"train.time_budget=90.5"})).time_budget, 90.5);
  EXPECT_HAS(error_of([] { load({"train.time_budget=-1"}); }), "train.time_budget: expected a number >= 0");
}

TEST(TrainExperimentConfig, DeviceIsCpuByDefaultAndParsesEveryForm) {
  EXPECT_EQ(experiment_device(load({})), Device::cpu);
  EXPECT_EQ(experiment_device(load({"device=strict:3"})), Device::strict(3));
  EXPECT_EQ(experiment_device(load({"device=cuda:2"}), /*check_available=*/false), Device::cuda(2));
  EXPECT_EQ(experiment_device(load({"device=cuda"}), /*check_available=*/false), Device::cuda(0));
}

// A typo is a config error (load_experiment_config, before anything is written), naming where it was set.
TEST(TrainExperimentConfig, ADeviceTypoFailsWhenTheConfigLoads) {
  for (const char* bad : {"device=gpu", "device=cuda:x", "device=cpu:1", "device=strict:99"}) {
    const std::string msg = error_of([&] { load({bad}); });
    EXPECT_HAS(msg, "device '") << bad;
    EXPECT_HAS(msg, "command line override") << bad;
    EXPECT_HAS(msg, "set `device: cpu`") << bad;
  }
}

// cuda asked for where there is none: without CUDA in the build, without a GPU, or beyond the GPUs.
TEST(TrainExperimentConfig, AMissingGpuIsAClearError) {
  const int gpus = cuda_device_count();
  const std::string msg = error_of([&] { experiment_device(load({fmt::format("device=cuda:{}", gpus)})); });
  EXPECT_HAS(msg, fmt::format("device cuda:{}: ", gpus));
  EXPECT_HAS(msg, "command line override `device=cuda:");
#ifndef LINTRA_WITH_CUDA
  EXPECT_HAS(msg, "this lintra was built without CUDA");
#else
  if (gpus == 0) EXPECT_HAS(msg, "no GPU is visible to this process");
  else EXPECT_HAS(msg, fmt::format("only {} GPU(s) are visible", gpus));
#endif
}

// matmul_precision: fp32 by default; a value outside fp32/bf16 fails as the config loads, naming the key;
// bf16 on a GPU, or where bf16 products cannot run, fails naming the key, where it was set and why.
TEST(TrainExperimentConfig, MatmulPrecisionIsFp32ByDefaultAndBf16SaysWhereItCannotRun) {
  EXPECT_EQ(apply_matmul_precision(load({})), MatmulPrecision::fp32);
  EXPECT_HAS(error_of([] { load({"matmul_precision=fp16"}); }), "matmul_precision");
  std::string msg = error_of([] { apply_matmul_precision(load({"matmul_precision=bf16", "device=cuda"})); });
  EXPECT_HAS(msg, "command line override `matmul_precision=bf16`: matmul_precision: ");
  EXPECT_HAS(msg, "bf16 products run on the CPU only, not on cuda:0");
  const std::string why = bf16_matmul_unsupported_reason();
  if (why.empty()) {
    EXPECT_EQ(apply_matmul_precision(load({"matmul_precision=bf16"})), MatmulPrecision::bf16);
  } else {
    EXPECT_HAS(error_of([] { apply_matmul_precision(load({"matmul_precision=bf16"})); }), why);
  }
  EXPECT_EQ(apply_matmul_precision(load({})), MatmulPrecision::fp32);  // back to the default for the other tests
}

// Every config a user runs (configs/<table>/<scale>/<row>.yaml) loads: no committed config relies on
// the old meaning of an empty value, and each pairs its model with a data set it can train on.
TEST(TrainExperimentConfig, EveryCommittedConfigLoads) {
  int loaded = 0;
  for (const auto& e : fs::recursive_directory_iterator(kConfigs)) {
    if (e.path().extension() != ".yaml") continue;
    EXPECT_NO_THROW(load_experiment_config({e.path().string()}, {})) << e.path();
    ++loaded;
  }
  EXPECT_GE(loaded, 40);
}

}  // namespace
}  // namespace lintra::train
