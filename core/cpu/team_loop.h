// cpu/team_loop.h — the parallel loop of the CPU kernels: team_for(n, parallel, f) runs f(i) for every
// i in [0, n) on the OpenMP team, items claimed one at a time (an atomic counter), like schedule(dynamic, 1);
// team_for_with gives each thread that takes part a state of its own (scratch buffers). Serial when
// `parallel` is false, for fewer than two items, one thread, or inside a parallel region.
//
// What it adds is for a core taken by another process. The team is pinned one thread per core
// (core/threading.h), so the intruder shares a core with one team thread, which the OS then runs half
// of the time. The claiming keeps the two busy, but at the end of the loop the thread that finds nothing
// left waits for the other's last item, and while the intruder holds that core the waiter's core idles:
// measured beside a busy loop on the 2-core Zen 4, 0.20 cores idle during the MNIST step while lintra
// ran on 1.25 (experiments/kernels/README.md, session 28). So a thread with nothing left watches the
// threads still in an item: every kSampleNs it reads such a thread's CPU-time clock, and when the thread
// ran for under half of the wall time it was descheduled: the two exchange their CPUs (the starved thread
// moves to the core about to idle, the waiter to the shared one, where it only sleeps until the next
// region). A thread that runs fine is watched for at most kWatchNs, then the waiter goes to the OpenMP
// barrier as before; a thread that has not yet come to the loop is watched the same way. Unpinned teams
// (a user's own binding), LINTRA_TEAM_EXCHANGE=0 and nested loops skip all this. Measured there: idle
// 0.08 cores, lintra on 1.41, the busy MNIST causal-linear step 1.41–1.42× the quiet one against
// 1.55–1.62× without the exchange; quiet steps level (a few exchanges a step from the host's own noise).
//
// Results cannot depend on any of it: items are the caller's, each run once, on whichever thread.
// Cost: two clock reads per item; the watching spins at most kWatchNs per loop on a thread that would
// otherwise sleep.
#pragma once

#include <omp.h>

#include <array>
#include <atomic>
#include <cstdint>

namespace lintra::kernels::cpu {

class TeamLoop {
 public:
  static constexpr int kMaxTeam = 64;
  static constexpr int64_t kSampleNs = 20'000;
  static constexpr int64_t kWatchNs = 1'000'000;

  explicit TeamLoop(int64_t n) : n_(n) {}
  TeamLoop(const TeamLoop&) = delete;
  TeamLoop& operator=(const TeamLoop&) = delete;

  // Whether a loop of team size `team` can keep a slot per thread (larger teams claim items without
  // watching).
  static bool fits(int team) { return team <= kMaxTeam; }

  void join(int me);       // the calling thread (team thread `me`) enters the loop
  int64_t claim(int me);   // the next item, or −1 when none are left
  void finish_item(int me);
  void leave(int me);      // no items left: watch the threads still in one, then return

 private:
  static constexpr int64_t kAbsent = -2, kBetween = -1, kDone = -3;  // Slot::since, else ns in an item
  struct alignas(64) Slot {
    std::atomic<int64_t> since{kAbsent};
    std::atomic<bool> moved{false};
    int64_t items = 0;
  };
  bool watch(int me, int other);  // true: moved `other` here (stop watching)

  std::atomic<int64_t> next_{0};
  const int64_t n_;
  std::array<Slot, kMaxTeam> slots_{};
};

// f(i, state) with per-thread state: each thread that takes part makes its own, state = make(), once.
template <typename Make, typename F> void team_for_with(int64_t n, bool parallel, Make&& make, F&& f) {
  const int team = omp_in_parallel() ? 1 : omp_get_max_threads();
  if (!parallel || n < 2 || team < 2) {
    if (n <= 0) return;
    auto state = make();
    for (int64_t i = 0; i < n; ++i) f(i, state);
    return;
  }
  if (!TeamLoop::fits(team)) {  // more threads than slots: claimed one at a time, nothing watched
#pragma omp parallel
    {
      auto state = make();
#pragma omp for schedule(dynamic, 1)
      for (int64_t i = 0; i < n; ++i) f(i, state);
    }
    return;
  }
  TeamLoop loop(n);
#pragma omp parallel
  {
    const int me = omp_get_thread_num();
    loop.join(me);
    int64_t i = loop.claim(me);
    if (i >= 0) {
      auto state = make();
      for (; i >= 0; i = loop.claim(me)) {
        f(i, state);
        loop.finish_item(me);
      }
    }
    loop.leave(me);
  }
}

template <typename F> void team_for(int64_t n, bool parallel, F&& f) {
  team_for_with(n, parallel, [] { return 0; }, [&](int64_t i, int) { f(i); });
}

}  // namespace lintra::kernels::cpu
