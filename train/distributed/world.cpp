#include "train/distributed/world.h"

#include <cstdlib>
#include <memory>

#include "core/error.h"
#if LINTRA_WITH_MPI
#include "train/distributed/mpi_communicator.h"
#endif

namespace lintra::dist {

namespace {

std::unique_ptr<Communicator> g_world;

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

int env_int(const char* name) { return env(name) ? std::atoi(env(name)) : 0; }

// Throws when the launcher started more processes than this process can join.
void check_launch(const Launch& l) {
  LINTRA_CHECK(l.mpi || l.processes <= 1,
               "srun started {} tasks, but with no MPI plugin each would train alone: run `srun --mpi=pmix ...` "
               "(`srun --mpi=list` lists the plugins of this cluster)",
               l.processes);
  LINTRA_CHECK(built_with_mpi() || l.processes <= 1,
               "{} started {} processes, but this lintra was built without MPI: install libopenmpi-dev "
               "(tools/install-deps.sh) and configure again (cmake -DLINTRA_MPI=ON)",
               l.launcher, l.processes);
}

void check_joined(const Launch& l, int mpi_size) {
  LINTRA_CHECK(l.processes <= 1 || mpi_size == l.processes,
               "{} started {} processes, but MPI joined {}: the launcher and the MPI library do not match (this "
               "lintra uses the MPI it was built with; run it with that MPI's mpirun, or srun --mpi=pmix)",
               l.launcher, l.processes, mpi_size);
}

}  // namespace

bool built_with_mpi() {
#if LINTRA_WITH_MPI
  return true;
#else
  return false;
#endif
}

Launch detect_launch() {
  Launch l;
  if (env("OMPI_COMM_WORLD_SIZE")) {
    l = {true, env_int("OMPI_COMM_WORLD_SIZE"), "mpirun"};
  } else if (env("PMIX_RANK") || env("PMI_RANK") || env("PMI_SIZE")) {
    l = {true, env("PMI_SIZE") ? env_int("PMI_SIZE") : env_int("SLURM_STEP_NUM_TASKS"), env("SLURM_JOB_ID") ? "srun" : "the MPI launcher"};
  } else if (env("SLURM_STEP_NUM_TASKS")) {
    l = {false, env_int("SLURM_STEP_NUM_TASKS"), "srun"};
  }
  if (l.processes < 1) l.processes = 1;
  return l;
}

Communicator& world() {
  if (g_world) return *g_world;
  const Launch l = detect_launch();
  check_launch(l);
#if LINTRA_WITH_MPI
  if (l.mpi) {
    std::unique_ptr<Communicator> c = mpi::init_world();
    check_joined(l, c->size());
    return *(g_world = std::move(c));
  }
#endif
  g_world = std::make_unique<SingleProcess>();
  return *g_world;
}

bool parallel() { return g_world && g_world->size() > 1; }

std::string rank_prefix() {
  return parallel() ? fmt::format("rank {} of {}: ", g_world->rank(), g_world->size()) : std::string();
}

void finalize() {
#if LINTRA_WITH_MPI
  if (g_world) mpi::finalize();
#endif
}

void abort_job_if_parallel(int status) {
#if LINTRA_WITH_MPI
  if (parallel()) mpi::abort(status);
#endif
  (void)status;
}

}  // namespace lintra::dist
