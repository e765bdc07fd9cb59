// cpu/team_loop.cpp — the claiming and the watching of team_for (cpu/team_loop.h).
#include "core/cpu/team_loop.h"

#include <time.h>

#include <cstdlib>
#include <string_view>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "core/threading.h"

namespace lintra::kernels::cpu {

namespace {

int64_t ns_of(clockid_t clock) {
  timespec t{};
  if (clock_gettime(clock, &t) != 0) return -1;
  return int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

int64_t wall_ns() { return ns_of(CLOCK_MONOTONIC); }

void pause() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

}  // namespace

void TeamLoop::join(int me) { slots_[size_t(me)].since.store(kBetween, std::memory_order_relaxed); }

int64_t TeamLoop::claim(int me) {
  const int64_t i = next_.fetch_add(1, std::memory_order_relaxed);
  if (i >= n_) return -1;
  slots_[size_t(me)].since.store(wall_ns(), std::memory_order_relaxed);
  return i;
}

void TeamLoop::finish_item(int me) {
  Slot& s = slots_[size_t(me)];
  s.since.store(kBetween, std::memory_order_relaxed);
  ++s.items;
}

void TeamLoop::leave(int me) {
  Slot& s = slots_[size_t(me)];
  s.since.store(kDone, std::memory_order_relaxed);
  // Only a thread that took part watches: one that arrived after the items were gone was the slow one.
  static const bool enabled = [] {
    const char* e = std::getenv("LINTRA_TEAM_EXCHANGE");
    return e == nullptr || std::string_view(e) != "0";
  }();
  if (!enabled || s.items == 0 || !in_pinned_seat(me)) return;
  const int team = omp_get_num_threads();
  if (pinned_seat(team - 1) == nullptr || pinned_seat(team) != nullptr) return;  // not the pinned team
  for (int other = 0; other < team; ++other)
    if (other != me && watch(me, other)) return;
}

bool TeamLoop::watch(int me, int other) {
  const PinnedSeat* self = pinned_seat(me);
  const PinnedSeat* seat = pinned_seat(other);
  if (self == nullptr || seat == nullptr) return false;
  Slot& s = slots_[size_t(other)];
  const int64_t end = wall_ns() + kWatchNs;
  for (int64_t t = wall_ns(); t < end; t = wall_ns()) {
    const int64_t since = s.since.load(std::memory_order_relaxed);
    if (since == kDone) return false;
    if (since == kBetween) {
      pause();
      continue;
    }
    const int64_t cpu0 = ns_of(seat->clock);
    int64_t t1 = t;
    while (t1 - t < kSampleNs && s.since.load(std::memory_order_relaxed) == since) {
      pause();
      t1 = wall_ns();
    }
    if (s.since.load(std::memory_order_relaxed) != since) continue;  // the item ended
    const int64_t cpu1 = ns_of(seat->clock);
    if (cpu0 < 0 || cpu1 < 0) return false;
    if (2 * (cpu1 - cpu0) < t1 - t) {  // descheduled for over half of the sample
      if (s.moved.exchange(true)) return false;
      exchange_pinned_cpus(*self, *seat);
      return true;
    }
  }
  return false;
}

}  // namespace lintra::kernels::cpu
