#include "core/threading.h"

#include <cblas.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <vector>

namespace lintra {

namespace {

// The CPUs this process may run on, read once (before any pinning narrows the main thread's set), and
// the pinned team's seats (one per team thread, rebuilt only by apply_pinning).
struct Cpus {
  cpu_set_t allowed;
  std::vector<int> list;
  bool pinned = false;
  std::vector<PinnedSeat> seats;
};

// Each thread's pinned CPU (−1: none), which PinnedSeat::cpu points at.
thread_local std::atomic<int> this_thread_cpu{-1};
std::atomic<int64_t> exchanges{0};

bool pin_to(pid_t tid, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(tid, sizeof set, &set) == 0;
}

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
  c.pinned = false;
  c.seats.assign(want ? size_t(n) : 0, PinnedSeat{});
#pragma omp parallel num_threads(n)
  {
    const int i = omp_get_thread_num();
    cpu_set_t set = c.allowed;
    if (want) {
      CPU_ZERO(&set);
      CPU_SET(c.list[size_t(i)], &set);
    }
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    this_thread_cpu.store(want ? c.list[size_t(i)] : -1);
    if (want) {
      PinnedSeat& seat = c.seats[size_t(i)];
      seat.tid = pid_t(syscall(SYS_gettid));
      if (pthread_getcpuclockid(pthread_self(), &seat.clock) != 0) seat.tid = 0;
      seat.cpu = &this_thread_cpu;
    }
  }
  bool complete = want;
  for (const PinnedSeat& seat : c.seats) complete = complete && seat.tid != 0;
  if (!complete) c.seats.clear();
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

const PinnedSeat* pinned_seat(int team_thread) {
  Cpus& c = cpus();
  if (!c.pinned || team_thread < 0 || size_t(team_thread) >= c.seats.size()) return nullptr;
  return &c.seats[size_t(team_thread)];
}

bool in_pinned_seat(int team_thread) {
  thread_local const pid_t tid = pid_t(syscall(SYS_gettid));
  const PinnedSeat* seat = pinned_seat(team_thread);
  return seat != nullptr && seat->tid == tid;
}

bool exchange_pinned_cpus(const PinnedSeat& self, const PinnedSeat& other) {
  const int mine = self.cpu->load(), theirs = other.cpu->load();
  if (mine < 0 || theirs < 0 || mine == theirs) return false;
  if (!pin_to(other.tid, mine)) return false;
  other.cpu->store(mine);
  if (!pin_to(self.tid, theirs)) return false;  // both on `mine` until the next exchange or pinning
  self.cpu->store(theirs);
  exchanges.fetch_add(1, std::memory_order_relaxed);
  return true;
}

int64_t pinned_cpu_exchanges() { return exchanges.load(std::memory_order_relaxed); }

}  // namespace lintra
