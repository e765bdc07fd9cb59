// mpi_communicator.h — the Communicator over MPI_COMM_WORLD (built only when CMake finds MPI:
// LINTRA_WITH_MPI). world.h decides when to use it; nothing else includes this file.
//
// MPI is initialised with MPI_THREAD_FUNNELED (only the trainer's thread calls MPI; OpenMP's and
// the loader's threads never do) and MPI_COMM_WORLD gets MPI_ERRORS_RETURN: a failing call is a
// lintra::Error naming the call, the rank and MPI's reason, instead of an abort inside the library.
#pragma once

#include <memory>

#include "train/distributed/communicator.h"

namespace lintra::dist::mpi {

// MPI_Init_thread (when not yet initialised) and the communicator of every rank of the job.
std::unique_ptr<Communicator> init_world();
// MPI_Finalize, when MPI was initialised and is not finalised yet. Every rank calls it at its end.
void finalize();
// MPI_Abort(MPI_COMM_WORLD, status): the launcher ends every rank of the job. For main only.
[[noreturn]] void abort(int status);

}  // namespace lintra::dist::mpi
