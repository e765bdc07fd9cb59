// main.cpp — the only place that exits: picks OpenBLAS's kernels for this CPU, runs the command
// line, and turns errors into exit codes. In a data-parallel job (mpirun, srun) it also ends MPI:
// after a normal end on every rank it finalizes; after an error on one rank it aborts the job, so
// that the launcher ends the other ranks (which would otherwise wait for it forever) and names the
// rank that failed. Errors of a rank say which one it is ("lintra: error: rank 1 of 2: …").
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "app/cli.h"
#include "core/error.h"
#include "core/openblas_core.h"
#include "train/distributed/world.h"

namespace {

// Two settings that libopenblas and libgomp read once, when they are loaded, so main() sets them
// (when the user has not) and re-executes itself:
// - OPENBLAS_CORETYPE: the kernels lintra picks for this CPU (core/openblas_core.h says why
//   OpenBLAS's own pick is not kept).
// - GOMP_SPINCOUNT: libgomp's idle threads spin for about 300,000 iterations before sleeping. On
//   these 2-core machines, shared with builds and other jobs, that spinning steals the cores the
//   work needs: a copy-task step ran 3× slower (8.8 against 28.5 sequences/s with 1,000).
void configure_runtime_and_reexec(char** argv) {
  if (std::getenv("LINTRA_RUNTIME_CONFIGURED") != nullptr) return;
  setenv("LINTRA_RUNTIME_CONFIGURED", "1", 1);
  bool changed = false;
  if (std::getenv("OPENBLAS_CORETYPE") == nullptr) {
    const char* core = lintra::openblas_core_for_this_cpu();
    if (core != nullptr) {
      setenv("OPENBLAS_CORETYPE", core, 1);
      changed = true;
    }
  }
  if (std::getenv("GOMP_SPINCOUNT") == nullptr && std::getenv("OMP_WAIT_POLICY") == nullptr) {
    setenv("GOMP_SPINCOUNT", "1000", 1);
    changed = true;
  }
  if (changed) execv("/proc/self/exe", argv);  // returns only on failure: then go on as we are
}

// An error: said (with the rank in a job of several), then the end of this process — of the whole job
// when it has several ranks.
int fail(const char* kind, const char* what, int status) {
  std::fprintf(stderr, "lintra: %s: %s%s\n", kind, lintra::dist::rank_prefix().c_str(), what);
  std::fflush(stderr);
  lintra::dist::abort_job_if_parallel(status);
  lintra::dist::finalize();
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  configure_runtime_and_reexec(argv);
  int status = 0;
  try {
    status = lintra::app::run_cli(argc, argv);
  } catch (const lintra::Error& e) {
    return fail("error", e.what(), 2);
  } catch (const std::exception& e) {
    return fail("internal error", e.what(), 3);
  }
  lintra::dist::finalize();
  return status;
}
