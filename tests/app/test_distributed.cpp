// test_distributed.cpp — data-parallel training end to end, through `mpirun -np 2 lintra train` as a
// user runs it (built only with MPI; CI runs it with mpirun --allow-run-as-root --oversubscribe):
//   - 2 ranks × batch B end with the parameters of 1 rank × batch 2B after 50 updates (dropout off),
//     within a relative difference of 1e-5 per tensor; the copy task counts a different number of
//     tokens on each rank, so this holds only because each rank's mean loss is weighted by its count;
//   - 2 ranks on the strict test device (device memory the host may not read) end bitwise where 2 ranks
//     on the CPU do: the gradients of a model on a device are summed through its seam;
//   - a 2-rank run whose rank 1 is SIGKILLed after a checkpoint brings the job down naming the rank,
//     and the same command resumes to bitwise the uninterrupted 2-rank result;
//   - a 2-rank checkpoint resumes on 1 rank (and back on 2), re-sharding the data and saying so;
//   - SIGTERM on one rank, or SIGUSR1 to mpirun, stops every rank at the same step with a checkpoint;
//   - ranks that would train different things, and a non-finite loss, stop the job with the reason.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <random>
#include <regex>
#include <thread>

#include "tests/app/lintra_process.h"
#include "train/checkpoint/checkpoint.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using namespace lintra::testing;

namespace {

const std::string kMpirun = LINTRA_MPIEXEC;  // "mpiexec --allow-run-as-root --oversubscribe"

// The smoke copy task with dropout off, one thread per rank, a checkpoint every 10 updates.
std::string copy_train(const std::string& dir, int batch, int steps, const std::string& extra = "") {
  return kLintra + " train " + kSource + "/configs/copy/smoke/softmax.yaml threads=1 model.dropout=0 " +
         "model.attention.attention_dropout=0 data.batch_size=" + std::to_string(batch) +
         " train.steps=" + std::to_string(steps) + " train.log_every=1 train.checkpoint_every=10 " + extra +
         " --run-dir " + dir;
}

std::string on_ranks(int ranks, const std::string& cmd) { return kMpirun + " -np " + std::to_string(ranks) + " " + cmd; }

// Starts a shell command in the background with its output in `log`; its pid is the command's own.
pid_t spawn_logged(const std::string& cmd, const std::string& log) {
  pid_t pid;
  const std::string full = "exec " + cmd + " > " + log + " 2>&1";
  const char* argv[] = {"/bin/sh", "-c", full.c_str(), nullptr};
  EXPECT_EQ(posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ), 0);
  return pid;
}

int wait_status(pid_t pid) {
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

void wait_for_file(const std::string& path) {
  for (int i = 0; i < 6000 && !fs::exists(path); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

// The pid train.log gives for `rank` ("… rank 1 pid 4242 on host …"), waiting for the line; 0 if none.
pid_t rank_pid(const std::string& dir, int rank) {
  const std::regex line("rank " + std::to_string(rank) + " pid ([0-9]+) on ");
  for (int i = 0; i < 6000; ++i) {
    std::smatch m;
    const std::string log = read_text(dir + "/train.log");
    if (std::regex_search(log, m, line)) return pid_t(std::stol(m[1]));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return 0;
}

double norm(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}

}  // namespace

// Not bitwise: one rank sums a weight's gradient over 2B rows inside one matrix product, two ranks
// over B rows each and then add the two sums, which rounds differently; RAdam then carries the
// difference on. The test prints the largest relative difference it found.
TEST(AppDistributed, TwoRanksOfBatchBEndWithTheParametersOfOneRankOfBatch2BAfter50Updates) {
  TempDir t;
  Result one = run(copy_train(t.path() + "/one", 8, 50));
  ASSERT_EQ(one.status, 0) << one.output;
  Result two = run(on_ranks(2, copy_train(t.path() + "/two", 4, 50)));
  ASSERT_EQ(two.status, 0) << two.output;
  const lintra::CheckpointData a = lintra::load_checkpoint(t.path() + "/one/checkpoints/step_50.h5");
  const lintra::CheckpointData b = lintra::load_checkpoint(t.path() + "/two/checkpoints/step_50.h5");
  EXPECT_EQ(a.world_size(), 1);
  EXPECT_EQ(b.world_size(), 2);
  ASSERT_EQ(a.model.size(), b.model.size());
  double worst = 0;
  bool bitwise = true;
  for (size_t i = 0; i < a.model.size(); ++i) {
    ASSERT_EQ(a.model[i].first, b.model[i].first);
    const std::vector<double> x = a.model[i].second.to_vector<double>(), y = b.model[i].second.to_vector<double>();
    std::vector<double> d(x.size());
    for (size_t k = 0; k < x.size(); ++k) d[k] = x[k] - y[k];
    const double rel = norm(d) / std::max(norm(x), 1e-30);
    EXPECT_LE(rel, 1e-5) << a.model[i].first;
    worst = std::max(worst, rel);
    bitwise = bitwise && x == y;
  }
  std::printf("2 ranks × batch 4 against 1 rank × batch 8 after 50 updates: largest relative difference of a "
              "parameter tensor %.3g; bitwise equal: %s\n", worst, bitwise ? "yes" : "no");
  // The loss of each update (the global batch's mean) agrees too.
  ASSERT_EQ(a.loss_history.size(), 50u);
  ASSERT_EQ(b.loss_history.size(), 50u);
  for (size_t k = 0; k < 50; ++k) EXPECT_NEAR(a.loss_history[k], b.loss_history[k], 1e-5 * a.loss_history[k]) << k;
  EXPECT_THAT(read_text(t.path() + "/two/train.log"), HasSubstr("2 ranks over MPI"));
}

// The strict device runs the CPU's kernels on memory the host may not read, and the averager sums its
// gradients through the host (copied out, summed in rank order, copied back): the same bits as the CPU.
TEST(AppDistributed, TwoRanksOnTheStrictDeviceEndBitwiseWhereTwoRanksOnTheCpuDo) {
  TempDir t;
  Result cpu = run(on_ranks(2, copy_train(t.path() + "/cpu", 4, 20)));
  ASSERT_EQ(cpu.status, 0) << cpu.output;
  Result strict = run(on_ranks(2, copy_train(t.path() + "/strict", 4, 20, "device=strict:0")));
  ASSERT_EQ(strict.status, 0) << strict.output;
  const lintra::CheckpointData a = lintra::load_checkpoint(t.path() + "/cpu/checkpoints/step_20.h5");
  const lintra::CheckpointData b = lintra::load_checkpoint(t.path() + "/strict/checkpoints/step_20.h5");
  EXPECT_EQ(b.world_size(), 2);
  ASSERT_EQ(a.model.size(), b.model.size());
  for (size_t i = 0; i < a.model.size(); ++i) {
    ASSERT_EQ(a.model[i].first, b.model[i].first);
    EXPECT_EQ(a.model[i].second.to_vector<double>(), b.model[i].second.to_vector<double>()) << a.model[i].first;
  }
  EXPECT_EQ(a.loss_history, b.loss_history);
  EXPECT_THAT(read_text(t.path() + "/strict/train.log"), HasSubstr("gradients: on strict:0, summed through the host"));
  EXPECT_THAT(read_text(t.path() + "/cpu/train.log"), HasSubstr("gradients: summed in rank order on the CPU"));
}

TEST(AppDistributed, ARankKilledAfterACheckpointStopsTheJobAndTheSameCommandResumesToTheUninterruptedResult) {
  TempDir t;
  const int steps = 60;
  ASSERT_EQ(run(on_ranks(2, copy_train(t.path() + "/full", 4, steps))).status, 0);
  const std::string dir = t.path() + "/killed";
  const pid_t mpirun = spawn_logged(on_ranks(2, copy_train(dir, 4, steps)), t.path() + "/killed.out");
  const pid_t rank1 = rank_pid(dir, 1);
  ASSERT_GT(rank1, 0) << read_text(dir + "/train.log");
  wait_for_file(dir + "/checkpoints/latest");
  std::this_thread::sleep_for(std::chrono::milliseconds(std::mt19937(7)() % 150));
  kill(rank1, SIGKILL);
  EXPECT_NE(wait_status(mpirun), 0) << "the run finished before the kill: the test needs more steps";
  const std::string said = read_text(t.path() + "/killed.out");
  EXPECT_THAT(said, HasSubstr("rank 1")) << said;
  EXPECT_THAT(said, HasSubstr("signal 9")) << said;
  Result resumed = run(on_ranks(2, copy_train(dir, 4, steps)));
  ASSERT_EQ(resumed.status, 0) << resumed.output;
  const std::string last = "/checkpoints/step_" + std::to_string(steps) + ".h5";
  Result d = run(kLintra + " ckpt diff " + t.path() + "/full" + last + " " + dir + last);
  EXPECT_EQ(d.status, 0) << "parameters or optimizer state differ after the resume:\n" << d.output;
  const std::vector<double> logged = train_values(dir, "step");
  ASSERT_EQ(logged.size(), size_t(steps));
  for (size_t i = 0; i < logged.size(); ++i) EXPECT_EQ(logged[i], double(i + 1));
}

TEST(AppDistributed, ATwoRankCheckpointResumesOnOneRankAndBackOnTwoReshardingTheData) {
  TempDir t;
  const std::string dir = t.path() + "/run";
  ASSERT_EQ(run(on_ranks(2, copy_train(dir, 4, 20))).status, 0);
  Result one = run(copy_train(dir, 4, 30));  // one rank, train.steps raised
  ASSERT_EQ(one.status, 0) << one.output;
  EXPECT_THAT(one.output, HasSubstr("written by 2 ranks, this run has 1: the data is re-sharded (global batch 2 × 4 → 1 × 4"));
  // 20 updates of 8 samples are 40 updates of 4: the same samples follow, none skipped.
  EXPECT_THAT(one.output, HasSubstr("160 samples of epoch 0 were done, this run continues at epoch 0 batch 40 (0 samples skipped"));
  Result two = run(on_ranks(2, copy_train(dir, 4, 41)));
  ASSERT_EQ(two.status, 0) << two.output;
  // 10 more updates of 4 (200 samples in all) continue at batch 25 of 8: exact, none skipped.
  EXPECT_THAT(two.output, HasSubstr("written by 1 rank, this run has 2"));
  EXPECT_THAT(two.output, HasSubstr("200 samples of epoch 0 were done, this run continues at epoch 0 batch 25"));
  EXPECT_EQ(lintra::load_checkpoint(dir + "/checkpoints/step_41.h5").world_size(), 2);
  const std::vector<double> logged = train_values(dir, "step");
  ASSERT_EQ(logged.size(), 41u);
  for (size_t i = 0; i < logged.size(); ++i) EXPECT_EQ(logged[i], double(i + 1));
}

// SIGTERM reaches rank 1 only; SIGUSR1 reaches mpirun, which passes it on to every rank.
TEST(AppDistributed, ASignalOnOneRankOrToMpirunStopsEveryRankAtTheSameStepWithACheckpoint) {
  TempDir t;
  for (const char* target : {"rank 1", "mpirun"}) {
    SCOPED_TRACE(target);
    const std::string dir = t.path() + "/" + (target[0] == 'r' ? "rank" : "mpirun");
    const pid_t mpirun = spawn_logged(on_ranks(2, copy_train(dir, 4, 5000)), dir + ".out");
    const pid_t rank1 = rank_pid(dir, 1);
    ASSERT_GT(rank1, 0);
    wait_for_file(dir + "/checkpoints/latest");
    if (target[0] == 'r') kill(rank1, SIGTERM);
    else kill(mpirun, SIGUSR1);
    EXPECT_EQ(wait_status(mpirun), 130) << read_text(dir + ".out");
    std::smatch m;
    const std::string log = read_text(dir + "/train.log");
    ASSERT_TRUE(std::regex_search(log, m, std::regex("stopped by a signal at step ([0-9]+)"))) << log;
    const lintra::CheckpointData c =
        lintra::load_checkpoint(dir + "/checkpoints/step_" + std::string(m[1]) + ".h5");  // verified
    EXPECT_EQ(c.world_size(), 2);
    EXPECT_EQ(c.loss_history.size(), size_t(std::stol(m[1])));
  }
}

TEST(AppDistributed, RanksThatWouldTrainDifferentThingsAndANonFiniteLossStopTheJobSayingWhy) {
  TempDir t;
  Result differ = run(kMpirun + " -np 1 " + copy_train(t.path() + "/a", 4, 5, "seed=1") + " : -np 1 " +
                      copy_train(t.path() + "/a", 4, 5, "seed=2"));
  EXPECT_NE(differ.status, 0);
  EXPECT_THAT(differ.output, HasSubstr("the ranks would train different things"));
  EXPECT_THAT(differ.output, HasSubstr("rank 1 on "));
  // A learning rate of 1e30 makes the second update's loss infinite on both ranks (it is the global
  // batch's loss, summed over the ranks): both stop at step 2, with the reason.
  Result nan = run(on_ranks(2, copy_train(t.path() + "/b", 4, 5, "optim.lr=1e30")));
  EXPECT_EQ(nan.status, 2) << nan.output;
  EXPECT_THAT(nan.output, HasSubstr("rank 0 of 2: train: the loss is not finite at step 2"));
}
