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
#pragma once

namespace lintra {

void set_num_threads(int n);  // n ≤ 0: keep the count; either way, pin or unpin as above
int num_threads();
// Whether set_num_threads pinned the team (for tests and the bench headers).
bool threads_pinned();

}  // namespace lintra
