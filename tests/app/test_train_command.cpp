// test_train_command.cpp — `lintra train` against the mistakes and accidents of issue 17, through the
// binary: a second training in one run directory fails at once naming the first one's pid, and a
// killed one's lock is taken over; a model that does not fit its data, a config mistake, missing data
// and a model too large for memory leave nothing on disk, and an error after the run directory exists
// is in its train.log; after a resume each (split, step) is in metrics.jsonl once; a finished run
// continues when train.steps is raised; train.time_budget stops a run early and a resumed run
// continues the same budget; an experiment name may not escape runs/.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <algorithm>
#include <thread>
#include <vector>

#include "tests/app/lintra_process.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace lintra::testing;

namespace {

const std::string kCopy = kSource + "/configs/copy/smoke/softmax.yaml threads=1 ";

// The pid written in a run directory's lock file (0 while there is none).
long lock_holder(const std::string& dir) {
  const std::string text = read_text(dir + "/lock");
  return text.empty() ? 0 : std::stol(text);
}

bool wait_for(const std::function<bool()>& done, int seconds = 120) {
  for (int i = 0; i < seconds * 100; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// Every (split, step) of a metrics.jsonl, with how often it appears.
std::map<std::pair<std::string, int>, int> step_counts(const std::string& dir) {
  std::map<std::pair<std::string, int>, int> counts;
  for (const char* split : {"train", "eval"})
    for (double s : split_values(dir, split, "step")) ++counts[{split, int(s)}];
  return counts;
}

void expect_each_step_once(const std::string& dir) {
  for (const auto& [key, n] : step_counts(dir)) EXPECT_EQ(n, 1) << key.first << " step " << key.second;
}

}  // namespace

// Issue 17.1: started together, two trainings in one run directory used to kill each other at their
// first checkpoint; 0.3 s apart, the second "resumed" the live run.
TEST(AppTrainCommand, ASecondTrainingInARunDirFailsAtOnceNamingTheFirstsPid) {
  TempDir t;
  const std::string dir = t.path() + "/run";
  const std::string cmd = kLintra + " train " + kCopy + "train.steps=1000000 --run-dir " + dir;
  const pid_t first = spawn(cmd);
  ASSERT_TRUE(wait_for([&] { return lock_holder(dir) != 0; })) << "the first training never took the lock";
  EXPECT_EQ(lock_holder(dir), long(first));
  const auto t0 = std::chrono::steady_clock::now();
  Result second = run(cmd);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(60));
  EXPECT_EQ(second.status, 2) << second.output;
  EXPECT_THAT(second.output, HasSubstr("another `lintra train` (pid " + std::to_string(first) + ") is training"));
  // Killed (after a checkpoint), the first leaves a stale lock: the next training takes it over and
  // says whose it was.
  ASSERT_TRUE(wait_for([&] { return fs::exists(dir + "/checkpoints/latest"); }));
  kill(first, SIGKILL);
  int st = 0;
  waitpid(first, &st, 0);
  const std::vector<double> first_steps = train_values(dir, "step");
  const pid_t third = spawn(cmd);
  ASSERT_TRUE(wait_for([&] { return lock_holder(dir) == long(third); }));
  const std::string resumed = "resumed from ";
  ASSERT_TRUE(wait_for([&] { return read_text(dir + "/train.log").find(resumed) != std::string::npos; }));
  const std::string log = read_text(dir + "/train.log");
  EXPECT_THAT(log, HasSubstr("(pid " + std::to_string(first) + ") ended without releasing"));
  EXPECT_THAT(log, HasSubstr("this one took it over"));
  const double at = std::stod(log.substr(log.find(" at step ", log.find(resumed)) + 9));
  // SIGINT once the loop runs, so that it stops cleanly. The killed first run may have left lines past
  // `at`, which the third trims only after logging its resume: only more lines past `at` than the first
  // left can be the third's own (the first is dead), written once its loop and signal handler are up.
  const auto past_at = [&](const std::vector<double>& steps) {
    return std::count_if(steps.begin(), steps.end(), [&](double s) { return s > at; });
  };
  const auto left_by_first = past_at(first_steps);
  ASSERT_TRUE(wait_for([&] { return past_at(train_values(dir, "step")) > left_by_first; }));
  kill(third, SIGINT);
  waitpid(third, &st, 0);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 130);
  EXPECT_EQ(lock_holder(dir), 0);  // released cleanly
}

// Issue 17.2 and 17.7: mistakes found before training leave no run directory behind.
TEST(AppTrainCommand, MistakesFoundBeforeTrainingLeaveNothingOnDisk) {
  TempDir t;
  const std::string dir = t.path() + "/run";
  Result pair = run(kLintra + " train " + kCopy + "model.type=image --run-dir " + dir);
  EXPECT_EQ(pair.status, 2) << pair.output;
  EXPECT_THAT(pair.output, HasSubstr("model.type 'image' (command line override `model.type=image`) cannot train on "
                                     "data.name 'copy'"));
  EXPECT_THAT(pair.output, HasSubstr("valid pairs:"));
  Result null = run(kLintra + " train " + kCopy + "model.layers= --run-dir " + dir);
  EXPECT_EQ(null.status, 2) << null.output;
  EXPECT_THAT(null.output, HasSubstr("model.layers: an empty value (null) is not a value"));
  // Missing photos32: the message names the command that makes it.
  Result data = run("LINTRA_DATA=" + t.path() + "/empty " + kLintra + " train " + kSource +
                    "/configs/cifar10/smoke/softmax.yaml threads=1 --run-dir " + dir);
  EXPECT_EQ(data.status, 2) << data.output;
  EXPECT_THAT(data.output, HasSubstr("`lintra data prepare photos32`"));
  Result cifar = run("LINTRA_DATA=" + t.path() + "/empty " + kLintra + " train " + kSource +
                     "/configs/cifar10/smoke/softmax.yaml threads=1 data.name=cifar10 --run-dir " + dir);
  EXPECT_EQ(cifar.status, 2) << cifar.output;
  EXPECT_THAT(cifar.output, HasSubstr("cifar-10-binary.tar.gz | tar xz -C"));
  // The default run directory (runs/<experiment>/…) is not made either, and a name may not escape runs/.
  Result typo = run("cd " + t.path() + " && " + kLintra + " train " + kCopy + "optim.lrr=1");
  EXPECT_EQ(typo.status, 2) << typo.output;
  Result escape = run("cd " + t.path() + " && " + kLintra + " train " + kCopy + "experiment=../../x");
  EXPECT_EQ(escape.status, 2) << escape.output;
  EXPECT_THAT(escape.output, HasSubstr("experiment: '../../x' would put the run directory outside runs/"));
  Result empty = run("cd " + t.path() + " && " + kLintra + " train " + kCopy + "experiment='\"\"'");
  EXPECT_EQ(empty.status, 2) << empty.output;
  EXPECT_THAT(empty.output, HasSubstr("experiment: the name is empty"));
  EXPECT_FALSE(fs::exists(dir));
  EXPECT_FALSE(fs::exists(t.path() + "/runs"));
}

// Issue 17.6: model.layers=100000 built 1.27 billion parameters in silence for over a minute.
TEST(AppTrainCommand, AModelTooLargeForMemoryIsRefusedBeforeItIsBuilt) {
  TempDir t;
  const std::string dir = t.path() + "/run";
  const auto t0 = std::chrono::steady_clock::now();
  Result r = run(kLintra + " train " + kCopy + "model.layers=10000000 --run-dir " + dir);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(60));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("parameters; training needs about"));
  EXPECT_THAT(r.output, HasSubstr("available: make the model or the batch smaller"));
  EXPECT_THAT(r.output, HasSubstr("model.layers = 10000000 (command line override `model.layers=10000000`)"));
  EXPECT_FALSE(fs::exists(dir));
  // A model that fits says its size before it is built.
  Result ok = run(kLintra + " train " + kCopy + "train.steps=1 --run-dir " + dir);
  ASSERT_EQ(ok.status, 0) << ok.output;
  EXPECT_THAT(read_text(dir + "/train.log"), HasSubstr("parameters; training needs about"));
}

// Issue 17.2: an error after the run directory exists is in its train.log, not only on stderr.
TEST(AppTrainCommand, AnErrorDuringTrainingIsInTrainLog) {
  TempDir t;
  const std::string dir = t.path() + "/run";
  Result r = run(kLintra + " train " + kCopy + "optim.lr=1e30 --run-dir " + dir);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(read_text(dir + "/train.log"), HasSubstr("error: train: the loss is not finite at step 2"));
}

// Issue 17.5: a process killed between a metrics line and its next checkpoint had written lines that
// the resumed run writes again. Here the kill is made exact: the checkpoints after step 4 are
// removed, as if the process had died after logging steps 5…12 but before checkpointing step 8.
TEST(AppTrainCommand, AfterAResumeEachSplitAndStepIsInMetricsOnce) {
  TempDir t;
  const std::string dir = t.path() + "/run", full = t.path() + "/full";
  const std::string args = "train.steps=12 train.checkpoint_every=4 train.eval_every=4 train.log_every=1 --run-dir ";
  ASSERT_EQ(run(kLintra + " train " + kCopy + args + full).status, 0);
  ASSERT_EQ(run(kLintra + " train " + kCopy + args + dir).status, 0);
  fs::remove(dir + "/checkpoints/step_8.h5");
  fs::remove(dir + "/checkpoints/step_12.h5");
  fs::remove(dir + "/checkpoints/best.h5");
  std::ofstream(dir + "/checkpoints/latest") << "step_4.h5\n";
  Result again = run(kLintra + " train " + kCopy + args + dir);
  ASSERT_EQ(again.status, 0) << again.output;
  EXPECT_THAT(again.output, HasSubstr("resumed from " + dir + "/checkpoints/step_4.h5 at step 4"));
  EXPECT_THAT(read_text(dir + "/train.log"), HasSubstr("metrics.jsonl: dropped 10 line(s) past step 4"));
  expect_each_step_once(dir);
  EXPECT_EQ(step_counts(dir).size(), 15u);  // 12 training lines, evaluations at 4, 8, 12
  EXPECT_EQ(train_losses(dir), train_losses(full));  // and they are the uninterrupted run's
}

// Issue 17.7: a finished run could not be continued by raising train.steps (another config).
TEST(AppTrainCommand, AFinishedRunContinuesWhenTrainStepsIsRaised) {
  TempDir t;
  const std::string dir = t.path() + "/run", full = t.path() + "/full";
  const std::string args = "train.checkpoint_every=4 train.log_every=1 --run-dir ";
  ASSERT_EQ(run(kLintra + " train " + kCopy + "train.steps=12 " + args + full).status, 0);
  ASSERT_EQ(run(kLintra + " train " + kCopy + "train.steps=8 " + args + dir).status, 0);
  Result more = run(kLintra + " train " + kCopy + "train.steps=12 " + args + dir);
  ASSERT_EQ(more.status, 0) << more.output;
  EXPECT_THAT(more.output, HasSubstr("train.steps raised from 8 to 12"));
  EXPECT_THAT(more.output, HasSubstr("finished 12 steps"));
  EXPECT_THAT(read_text(dir + "/config.yaml"), HasSubstr("steps: 12"));
  Result same = run(kLintra + " ckpt diff " + full + "/checkpoints/step_12.h5 " + dir + "/checkpoints/step_12.h5");
  EXPECT_EQ(same.status, 0) << "8 + 4 updates differ from 12:\n" << same.output;
  Result lower = run(kLintra + " train " + kCopy + "train.steps=4 " + args + dir);
  EXPECT_EQ(lower.status, 2) << lower.output;
  EXPECT_THAT(lower.output, HasSubstr("train.steps: `12` in the run directory, `4` now (a resumed run may only raise it)"));
  Result shape = run(kLintra + " train " + kCopy + "train.steps=12 model.layers=2 " + args + dir);
  EXPECT_EQ(shape.status, 2) << shape.output;
  EXPECT_THAT(shape.output, HasSubstr("model.layers: `1` in the run directory, `2` now"));
}

// train.time_budget: a tiny budget stops early with a final evaluation and checkpoint at the update
// reached; the same command does nothing more; a raised budget continues the one already spent.
TEST(AppTrainCommand, ATimeBudgetStopsEarlyAndAResumeContinuesIt) {
  TempDir t;
  const std::string dir = t.path() + "/run";
  const std::string base = kLintra + " train " + kCopy + "train.steps=1000000 train.log_every=5 --run-dir " + dir + " ";
  Result r = run(base + "train.time_budget=1");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("time budget reached"));
  const std::vector<double> evals = split_values(dir, "eval", "step");
  ASSERT_EQ(evals.size(), 1u);
  const int reached = int(evals[0]);
  EXPECT_GT(reached, 0);
  EXPECT_LT(reached, 1000000);
  EXPECT_TRUE(fs::exists(dir + "/checkpoints/step_" + std::to_string(reached) + ".h5"));
  const double spent = split_values(dir, "eval", "train_seconds").back();
  EXPECT_GE(spent, 1.0);
  EXPECT_LT(spent, 3.0);
  Result again = run(base + "train.time_budget=1");
  ASSERT_EQ(again.status, 0) << again.output;
  EXPECT_THAT(again.output, HasSubstr("time budget reached"));
  EXPECT_EQ(split_values(dir, "eval", "step").size(), 1u);  // nothing more trained
  Result more = run(base + "train.time_budget=2");
  ASSERT_EQ(more.status, 0) << more.output;
  EXPECT_THAT(more.output, HasSubstr("train.time_budget raised from 1.0 to 2.0"));
  const std::vector<double> steps = split_values(dir, "eval", "step");
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_GT(steps[1], steps[0]);
  const double total = split_values(dir, "eval", "train_seconds").back();
  EXPECT_GE(total, 2.0);
  EXPECT_LT(total, 2.0 + (spent - 1.0) + 1.0);  // a restarted budget would have reached 3
  expect_each_step_once(dir);
}

// Issue 14.5: periodic evaluations read train.eval_batches batches, the final one the whole eval split
// (copy smoke: 64 sequences in batches of 8).
TEST(AppTrainCommand, TheFinalEvaluationReadsTheWholeEvalSplit) {
  TempDir t;
  const std::string dir = t.path() + "/run";
  Result r = run(kLintra + " train " + kCopy + "train.steps=8 train.eval_every=4 train.eval_batches=2 --run-dir " + dir);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(split_values(dir, "eval", "step"), (std::vector<double>{4, 8}));
  EXPECT_EQ(split_values(dir, "eval", "eval_batches"), (std::vector<double>{2, 8}));
}
