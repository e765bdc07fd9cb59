// world.h — the process's place in a data-parallel job: the Communicator of every rank the launcher
// started, made on first use.
//
// A process started by mpirun (OpenMPI sets OMPI_COMM_WORLD_SIZE) or by srun with an MPI plugin
// (PMIX_RANK, PMI_RANK) initialises MPI and gets an MpiCommunicator; any other process — plain
// `lintra train` — never touches MPI and is one rank (SingleProcess). world() throws, rather than
// let K processes each train alone in one run directory, when the launcher started several
// processes that MPI cannot join: a lintra built without MPI under mpirun, srun without an MPI
// plugin, or MPI seeing fewer ranks than the launcher started.
//
// The end of the job belongs to main (the only place that exits): finalize() after a normal end on
// every rank; abort_job() after an error on one rank, which would otherwise leave the others
// waiting forever in their next collective. The launcher then ends every rank and names the one
// that aborted ("MPI_ABORT was invoked on rank 1 …").
#pragma once

#include <string>

#include "train/distributed/communicator.h"

namespace lintra::dist {

// What the environment says about the launcher: the processes it started (1: none, or one).
struct Launch {
  bool mpi = false;         // an MPI launcher's variables are set
  int processes = 1;        // as the launcher counts them (OMPI_COMM_WORLD_SIZE, PMI_SIZE, SLURM_STEP_NUM_TASKS)
  std::string launcher;     // "mpirun", "srun", or "" (none)
};
Launch detect_launch();

// The communicator of this process's job (made, and MPI initialised, on the first call).
Communicator& world();
// True once world() has been made with more than one rank.
bool parallel();
// "rank 1 of 2: " once world() has more than one rank, else "" (a prefix for main's error lines).
std::string rank_prefix();

// For main: MPI_Finalize when MPI was initialised (a no-op otherwise).
void finalize();
// For main: ends every rank of the job with `status` (MPI_Abort) when parallel(); returns otherwise.
void abort_job_if_parallel(int status);

// True when this build can join MPI jobs (CMake found MPI).
bool built_with_mpi();

}  // namespace lintra::dist
