// test_run_lock.cpp — one training process per run directory (train/run_lock.h): a second lock fails
// at once naming the holder's pid, in this process or another; a holder killed with SIGKILL leaves a
// stale lock that the next process takes over (reporting the dead pid); a clean release leaves none.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/test_util.h"
#include "train/run_lock.h"

namespace lintra::train {
namespace {

namespace fs = std::filesystem;
using lintra::testing::error_of;

class TrainRunLock : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() / ("lintra_test_run_lock_" + std::to_string(::getpid()))).string();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_;
};

TEST_F(TrainRunLock, ASecondLockFailsAtOnceNamingTheHolder) {
  RunLock held(dir_);
  EXPECT_EQ(held.previous_holder(), 0);
  EXPECT_EQ(read_lock_holder(held.path()), int64_t(::getpid()));
  const auto t0 = std::chrono::steady_clock::now();
  const std::string msg = error_of([&] { RunLock again(dir_); });
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));  // no waiting
  EXPECT_HAS(msg, dir_ + ": another `lintra train` (pid " + std::to_string(::getpid()) + ") is training");
  EXPECT_HAS(msg, "kill -INT " + std::to_string(::getpid()));
  EXPECT_HAS(msg, "pick another --run-dir");
}

TEST_F(TrainRunLock, ACleanReleaseLeavesNoHolderAndTheNextTakesIt) {
  { RunLock first(dir_); }
  EXPECT_TRUE(fs::exists(dir_ + "/lock"));  // the file stays; only its pid goes
  EXPECT_EQ(read_lock_holder(dir_ + "/lock"), 0);
  RunLock second(dir_);
  EXPECT_EQ(second.previous_holder(), 0);
  RunLock moved = std::move(second);
  EXPECT_HAS(error_of([&] { RunLock third(dir_); }), "is training in this run directory");
}

// Another process holds the lock: the message names its pid; once it is SIGKILLed the lock is free
// (the kernel drops a dead process's flocks) and the dead pid is reported as the previous holder.
TEST_F(TrainRunLock, AnotherProcessHoldsItUntilKilledThenItIsTakenOver) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    RunLock lock(dir_);
    char c = 1;
    (void)!::write(ready[1], &c, 1);
    for (;;) ::pause();
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  EXPECT_HAS(error_of([&] { RunLock mine(dir_); }), "(pid " + std::to_string(child) + ")");
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  RunLock mine(dir_);
  EXPECT_EQ(mine.previous_holder(), int64_t(child));
  EXPECT_EQ(read_lock_holder(mine.path()), int64_t(::getpid()));
  ::close(ready[0]);
  ::close(ready[1]);
}

TEST_F(TrainRunLock, AnUnusableLockFileSaysWhy) {
  fs::create_directories(dir_ + "/lock");  // a folder where the lock file should be
  EXPECT_HAS(error_of([&] { RunLock lock(dir_); }), dir_ + "/lock: cannot open the run directory's lock file: Is a directory");
  EXPECT_HAS(error_of([&] { RunLock lock(dir_ + "/missing"); }), "No such file or directory");
}

}  // namespace
}  // namespace lintra::train
