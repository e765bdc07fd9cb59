// test_world.cpp — how a process learns its place in a job from the launcher's environment, and the
// refusals that keep K processes from each training alone in one run directory. (A test binary run
// by CTest is not under a launcher; each case sets and clears the variables it needs.)
#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/test_util.h"
#include "train/distributed/world.h"

namespace lintra::dist {
namespace {

// Sets environment variables for one scope, and clears them after.
class Env {
 public:
  Env(std::initializer_list<std::pair<const char*, const char*>> vars) : vars_(vars) {
    for (const auto& [k, v] : vars_) setenv(k, v, 1);
  }
  ~Env() {
    for (const auto& [k, v] : vars_) unsetenv(k);
  }

 private:
  std::vector<std::pair<const char*, const char*>> vars_;
};

TEST(TrainDistributedWorld, TheLaunchersVariablesSayHowManyProcessesItStarted) {
  EXPECT_FALSE(detect_launch().mpi);
  EXPECT_EQ(detect_launch().processes, 1);
  {
    Env env{{"OMPI_COMM_WORLD_SIZE", "4"}};
    EXPECT_TRUE(detect_launch().mpi);
    EXPECT_EQ(detect_launch().processes, 4);
    EXPECT_EQ(detect_launch().launcher, "mpirun");
  }
  {
    Env env{{"PMIX_RANK", "1"}, {"SLURM_STEP_NUM_TASKS", "3"}, {"SLURM_JOB_ID", "77"}};
    EXPECT_TRUE(detect_launch().mpi);
    EXPECT_EQ(detect_launch().processes, 3);
    EXPECT_EQ(detect_launch().launcher, "srun");
  }
  {
    Env env{{"SLURM_STEP_NUM_TASKS", "2"}};
    EXPECT_FALSE(detect_launch().mpi);
    EXPECT_EQ(detect_launch().processes, 2);
  }
}

TEST(TrainDistributedWorld, SrunWithoutAnMpiPluginIsRefused) {
  Env env{{"SLURM_STEP_NUM_TASKS", "4"}};
  EXPECT_HAS(testing::error_of([] { world(); }), "srun started 4 tasks, but with no MPI plugin");
  EXPECT_FALSE(parallel());
  EXPECT_EQ(rank_prefix(), "");
}

TEST(TrainDistributedWorld, APlainProcessIsOneRankWithoutMpi) {
  Communicator& w = world();
  EXPECT_EQ(w.size(), 1);
  EXPECT_EQ(w.name(), "one process");
  EXPECT_EQ(&world(), &w);  // made once
  EXPECT_FALSE(parallel());
  finalize();  // nothing to finalize: a no-op
}

}  // namespace
}  // namespace lintra::dist
