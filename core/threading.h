// threading.h — one thread-count setting for the whole process (DESIGN.md §2.1).
// OpenBLAS (OpenMP build) and lintra's loops share libgomp's pool; set_num_threads sets both.
//
// Pinning. When the team has as many threads as this process may use CPUs (2 of 2 on the machines
// lintra trains on), set_num_threads pins team thread i to the i-th of those CPUs. The reason is
// another process that takes a core: with three runnable threads on two cores the scheduler keeps
// whichever 2 + 1 arrangement it happens to have, and when the intruder is the one alone, both of
// lintra's threads share the other core (one core in all, a step 2× slower); pinned one per core, the
// intruder can only share a core with one of them (1.5 cores). Measured on a 2-core Zen 4 with a busy
// loop beside the paper's MNIST causal-linear step: 3.90 → 3.46 s (median of 6), the quiet step level
// (experiments/kernels/README.md, session 12). Fewer threads than CPUs, more, or a user's own binding
// (OMP_PROC_BIND set, or LINTRA_PIN_THREADS=0): nothing is pinned, and an earlier pinning is undone.
// Pinned threads cannot move to a core that goes idle, so the kernels' loop (core/cpu/team_loop.h) lets
// a thread with nothing left swap cores with one the intruder keeps from running (exchange_pinned_cpus).
#pragma once

#include <sys/types.h>
#include <time.h>

#include <atomic>
#include <cstdint>

namespace lintra {

void set_num_threads(int n);  // n ≤ 0: keep the count; either way, pin or unpin as above
int num_threads();
// Whether set_num_threads pinned the team (for tests and the bench headers).
bool threads_pinned();

// A thread of the pinned team: its kernel thread id, its CPU-time clock, and the CPU it is pinned to
// now (its own atomic, which exchange_pinned_cpus updates).
struct PinnedSeat {
  pid_t tid = 0;
  clockid_t clock{};
  std::atomic<int>* cpu = nullptr;
};

// The seat of OpenMP team thread i while the team is pinned, else null; valid until the next
// set_num_threads.
const PinnedSeat* pinned_seat(int team_thread);
// Whether the calling thread sits in seat i (false when the team is not the one set_num_threads pinned,
// e.g. after an omp_set_num_threads of the caller's own).
bool in_pinned_seat(int team_thread);

// The calling thread (seat `self`) takes `other`'s CPU and `other` takes the caller's: for a caller
// about to wait, with nothing left to do, for a team thread that shares its core with another process
// (core/cpu/team_loop.h). Returns whether both threads moved.
bool exchange_pinned_cpus(const PinnedSeat& self, const PinnedSeat& other);
// How many exchanges this process has made (for the bench rows).
int64_t pinned_cpu_exchanges();

}  // namespace lintra
