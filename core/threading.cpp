#include "core/threading.h"

#include <cblas.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>

#include <cstdlib>
#include <cstring>
#include <vector>

namespace lintra {

namespace {

// The CPUs this process may run on, read once (before any pinning narrows the main thread's set).
struct Cpus {
  cpu_set_t allowed;
  std::vector<int> list;
  bool pinned = false;
};

Cpus& cpus() {
  static Cpus c = [] {
    Cpus r;
    CPU_ZERO(&r.allowed);
    if (sched_getaffinity(0, sizeof r.allowed, &r.allowed) == 0)
      for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &r.allowed)) r.list.push_back(cpu);
    return r;
  }();
  return c;
}

bool pinning_allowed() {
  const char* pin = std::getenv("LINTRA_PIN_THREADS");
  return std::getenv("OMP_PROC_BIND") == nullptr && (pin == nullptr || std::strcmp(pin, "0") != 0);
}

// Pins team thread i to CPU list[i] (want) or gives each back the whole allowed set. libgomp runs a
// team of n on the same pool threads every time, so the pinning holds for every later region of n
// threads (lintra's loops, OpenBLAS's, the recurrent engine's).
void apply_pinning(int n) {
  Cpus& c = cpus();
  const bool want = n >= 2 && size_t(n) == c.list.size() && pinning_allowed();
  if (!want && !c.pinned) return;
#pragma omp parallel num_threads(n)
  {
    cpu_set_t set = c.allowed;
    if (want) {
      CPU_ZERO(&set);
      CPU_SET(c.list[size_t(omp_get_thread_num())], &set);
    }
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  }
  c.pinned = want;
}

}  // namespace

void set_num_threads(int n) {
  if (n > 0) {
    omp_set_num_threads(n);
    openblas_set_num_threads(n);
  }
  apply_pinning(num_threads());
}

int num_threads() { return omp_get_max_threads(); }

bool threads_pinned() { return cpus().pinned; }

}  // namespace lintra
