// test_run_dir.cpp — the run directory (train/run_dir.h): a new one gets config.yaml and its files and
// is locked for its process; reopening with the same config resumes, with a raised train.steps it
// continues (config.yaml rewritten, the change in train.log), with anything else it is refused and
// left as it was; files that cannot be made say why; metrics.jsonl is cut back on resume.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_util.h"
#include "train/experiment_config.h"
#include "train/run_dir.h"

namespace lintra::train {
namespace {

namespace fs = std::filesystem;
using lintra::testing::error_of;

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string yaml_of(const std::vector<std::string>& overrides) {
  Config raw;
  for (const std::string& o : overrides) apply_override(raw, o, nullptr);
  return to_yaml(validate_section(raw, experiment_schema()));
}

class TrainRunDir : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = (fs::temp_directory_path() / ("lintra_test_run_dir_" + std::to_string(::getpid()))).string();
    fs::remove_all(root_);
    dir_ = root_ + "/runs/x/1";
  }
  void TearDown() override { fs::remove_all(root_); }
  std::string root_, dir_;
};

TEST_F(TrainRunDir, ANewRunGetsItsFilesAndIsLockedWhileOpen) {
  const std::string yaml = yaml_of({"+train.steps=10"});
  {
    RunDir run(dir_, yaml, {"train.steps=10"});
    EXPECT_FALSE(run.existed());
    for (const char* f : {"config.yaml", "overrides.txt", "train.log", "metrics.jsonl", "checkpoints", "samples", "lock"})
      EXPECT_TRUE(fs::exists(dir_ + "/" + f)) << f;
    EXPECT_EQ(read(dir_ + "/config.yaml"), yaml);
    EXPECT_HAS(error_of([&] { RunDir again(dir_, yaml, {}); }), "another `lintra train` (pid " + std::to_string(::getpid()));
    run.metrics("train", {{"step", 1}});
  }
  RunDir again(dir_, yaml, {});
  EXPECT_TRUE(again.existed());
  EXPECT_TRUE(again.raised().empty());
  EXPECT_HAS(read(dir_ + "/overrides.txt"), "(resumed)");
}

// A finished run continues when train.steps is raised: config.yaml takes the new value (so the same
// command resumes it again) and train.log says what changed.
TEST_F(TrainRunDir, RaisingTrainStepsContinuesAndRewritesConfigYaml) {
  { RunDir run(dir_, yaml_of({"+train.steps=10"}), {}); }
  const std::string more = yaml_of({"+train.steps=25"});
  {
    RunDir run(dir_, more, {});
    ASSERT_EQ(run.raised().size(), 1u);
    EXPECT_EQ(run.raised()[0].key, "train.steps");
  }
  EXPECT_EQ(read(dir_ + "/config.yaml"), more);
  EXPECT_HAS(read(dir_ + "/train.log"), "train.steps raised from 10 to 25");
  RunDir same(dir_, more, {});
  EXPECT_TRUE(same.raised().empty());
}

TEST_F(TrainRunDir, AnotherConfigIsRefusedNamingTheKeyAndNothingChanges) {
  const std::string yaml = yaml_of({"+train.steps=10"});
  { RunDir run(dir_, yaml, {}); }
  const std::string overrides = read(dir_ + "/overrides.txt");
  const std::string msg = error_of([&] { RunDir run(dir_, yaml_of({"+train.steps=10", "+model.layers=2"}), {}); });
  EXPECT_HAS(msg, "the run directory was made with another config (1 key(s) differ)");
  EXPECT_HAS(msg, "model.layers: `4` in the run directory, `2` now");
  EXPECT_EQ(read(dir_ + "/config.yaml"), yaml);
  EXPECT_EQ(read(dir_ + "/overrides.txt"), overrides);
  EXPECT_EQ(read(dir_ + "/lock"), "");  // released by the failed opening
}

TEST_F(TrainRunDir, FilesThatCannotBeMadeSayWhy) {
  fs::create_directories(root_);
  std::ofstream(root_ + "/file") << "x";
  EXPECT_HAS(error_of([&] { RunDir run(root_ + "/file/run", "a: 1\n", {}); }), "cannot create the run directory: Not a directory");
  fs::create_directories(dir_ + "/train.log");  // a folder where the log should be
  EXPECT_HAS(error_of([&] { RunDir run(dir_, yaml_of({}), {}); }), "/train.log: cannot open for writing: Is a directory");
}

TEST_F(TrainRunDir, ResumingCutsMetricsBackToTheCheckpointsStep) {
  const std::string yaml = yaml_of({});
  {
    RunDir run(dir_, yaml, {});
    for (int s = 1; s <= 6; ++s) run.metrics("train", {{"step", double(s)}});
  }
  RunDir run(dir_, yaml, {});
  run.resume_metrics_at(4);
  run.metrics("train", {{"step", 5}});
  const std::string m = read(dir_ + "/metrics.jsonl");
  EXPECT_EQ(m.find("\"step\":6"), std::string::npos) << m;
  EXPECT_EQ(m.find("\"step\":5"), m.rfind("\"step\":5")) << m;
  EXPECT_HAS(read(dir_ + "/train.log"), "metrics.jsonl: dropped 2 line(s)");
}

}  // namespace
}  // namespace lintra::train
