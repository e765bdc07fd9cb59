// test_metrics_file.cpp — metrics.jsonl lines (train/metrics_file.h) and cutting the file back to the
// step a run resumes from: lines past it go, so do a torn last line and earlier copies of a (split,
// step), and the rewrite is atomic (no .tmp left, untouched when nothing goes).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/test_util.h"
#include "train/metrics_file.h"

namespace lintra::train {
namespace {

namespace fs = std::filesystem;

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class TrainMetricsFile : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (fs::temp_directory_path() / ("lintra_test_metrics_" + std::to_string(::getpid()) + ".jsonl")).string();
  }
  void TearDown() override { fs::remove(path_); }
  void write(const std::string& text) { std::ofstream(path_) << text; }
  std::string path_;
};

TEST_F(TrainMetricsFile, ALineHasStepEpochSplitThenTheMetricsInOrder) {
  EXPECT_EQ(metrics_line("eval", {{"loss", 0.5}, {"step", 4}, {"epoch", 1}, {"bad", INFINITY}}),
            R"({"step":4,"epoch":1,"split":"eval","bad":null,"loss":0.5})");
}

// A run that logged steps 1..6 (train) and 4 (eval), was killed before its checkpoint at step 8 and
// resumes from step 4: steps 5 and 6 will be written again, so they go now.
TEST_F(TrainMetricsFile, LinesPastTheResumedStepAreDropped) {
  std::string text;
  for (int s = 1; s <= 6; ++s) text += metrics_line("train", {{"step", double(s)}, {"loss", 1.0 / s}}) + "\n";
  text += metrics_line("eval", {{"step", 4}, {"loss", 0.3}}) + "\n";
  write(text + R"({"step":7,"split":"tra)");  // torn by the kill
  const MetricsTrim t = drop_metrics_after(path_, 4);
  EXPECT_EQ(t.kept, 5);
  EXPECT_EQ(t.dropped, 2);
  EXPECT_EQ(t.unreadable, 1);
  const std::string after = read(path_);
  EXPECT_HAS(after, R"("step":4,"split":"train")");
  EXPECT_HAS(after, R"("step":4,"split":"eval")");
  EXPECT_EQ(after.find(R"("step":5)"), std::string::npos) << after;
  EXPECT_EQ(after.find(R"("step":7)"), std::string::npos) << after;
  EXPECT_FALSE(fs::exists(path_ + ".tmp"));
}

// A file written before this fix may already repeat a (split, step): the last copy is the one of the
// lineage that went on, so it is kept, in its place.
TEST_F(TrainMetricsFile, EarlierCopiesOfAStepGoTheLastStays) {
  write(metrics_line("train", {{"step", 1}, {"loss", 9}}) + "\n" + metrics_line("train", {{"step", 2}, {"loss", 8}}) +
        "\n" + metrics_line("train", {{"step", 2}, {"loss", 7}}) + "\n" + metrics_line("eval", {{"step", 2}}) + "\n");
  const MetricsTrim t = drop_metrics_after(path_, 10);
  EXPECT_EQ(t.kept, 3);
  EXPECT_EQ(t.dropped, 1);
  EXPECT_EQ(read(path_), metrics_line("train", {{"step", 1}, {"loss", 9}}) + "\n" +
                             metrics_line("train", {{"step", 2}, {"loss", 7}}) + "\n" +
                             metrics_line("eval", {{"step", 2}}) + "\n");
}

TEST_F(TrainMetricsFile, NothingToDropLeavesTheFileAndAMissingFileStaysMissing) {
  const std::string text = metrics_line("train", {{"step", 1}}) + "\n";
  write(text);
  const auto before = fs::last_write_time(path_);
  EXPECT_EQ(drop_metrics_after(path_, 1).dropped, 0);
  EXPECT_EQ(read(path_), text);
  EXPECT_EQ(fs::last_write_time(path_), before);
  fs::remove(path_);
  EXPECT_EQ(drop_metrics_after(path_, 0).kept, 0);
  EXPECT_FALSE(fs::exists(path_));
}

}  // namespace
}  // namespace lintra::train
