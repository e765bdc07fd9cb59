// main.cpp — the only place that exits: picks OpenBLAS's kernels for this CPU, runs the command
// line, and turns errors into exit codes. In a data-parallel job (mpirun, srun) it also ends MPI:
// after a normal end on every rank it finalizes; after an error on one rank it aborts the job, so
// that the launcher ends the other ranks (which would otherwise wait for it forever) and names the
// rank that failed. Errors of a rank say which one it is ("lintra: error: rank 1 of 2: …").
#include <cpuid.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "app/cli.h"
#include "core/error.h"
#include "train/distributed/world.h"

namespace {

// Two settings that libopenblas and libgomp read once, when they are loaded, so main() sets them
// (when the user has not) and re-executes itself:
// - OPENBLAS_CORETYPE: Debian's OpenBLAS 0.3.21 does not recognise recent Intel server CPUs
//   (Sapphire/Emerald Rapids) and falls back to its generic PRESCOTT kernels: sgemm then runs 6–7×
//   slower (measured here: 13 against 86 GFLOP/s on one core). We pick the kernels from the CPU
//   (openblas_core_for_this_cpu).
// - GOMP_SPINCOUNT: libgomp's idle threads spin for about 300,000 iterations before sleeping. On
//   these 2-core machines, shared with builds and other jobs, that spinning steals the cores the
//   work needs: a copy-task step ran 3× slower (8.8 against 28.5 sequences/s with 1,000).
// AMD family 25 (Zen 3, Zen 4), from CPUID: Zen 4 has AVX-512 but executes each 512-bit operation as
// two 256-bit halves.
bool is_amd_family_25() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) == 0) return false;
  const bool amd = ebx == 0x68747541u && edx == 0x69746e65u && ecx == 0x444d4163u;  // "AuthenticAMD"
  if (!amd || __get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
  const unsigned base = (eax >> 8) & 0xfu, extended = (eax >> 20) & 0xffu;
  return base == 0xfu && base + extended == 25;
}

// The OpenBLAS kernels for this CPU, or null (none of these features: OpenBLAS's own pick). By
// features, except on Zen 4, where OpenBLAS's AVX2 (Haswell) kernels beat its AVX-512 ones, which are
// blocked for Intel's two full-width FMA ports: one-thread sgemm at the paper's layer shapes 1.04–1.08×,
// the CIFAR-10 training steps 1.04× (causal-linear) and 1.06× (softmax), the MNIST step level
// (experiments/kernels/README.md, session 28). Zen 5's full-width units keep Cooperlake: there the
// AVX-512 sgemm ran 1.7× the Haswell one (session 11).
const char* openblas_core_for_this_cpu() {
  if (is_amd_family_25() && __builtin_cpu_supports("avx2")) return "Haswell";
  if (__builtin_cpu_supports("avx512bf16")) return "Cooperlake";
  if (__builtin_cpu_supports("avx512f")) return "SkylakeX";
  if (__builtin_cpu_supports("avx2")) return "Haswell";
  return nullptr;
}

void configure_runtime_and_reexec(char** argv) {
  if (std::getenv("LINTRA_RUNTIME_CONFIGURED") != nullptr) return;
  setenv("LINTRA_RUNTIME_CONFIGURED", "1", 1);
  bool changed = false;
  if (std::getenv("OPENBLAS_CORETYPE") == nullptr) {
    const char* core = openblas_core_for_this_cpu();
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
