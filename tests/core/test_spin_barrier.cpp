// test_spin_barrier.cpp — core/spin_barrier.h.
// Invariants: no thread leaves phase r before every thread has finished its work of phase r, over
// many consecutive phases (the barrier is reusable at once), for teams of 2 and 3 threads — more
// threads than these 2-core machines have, so waiters also take the sleeping path — and with one
// thread slowed at every phase so that the others spin out and sleep; a team of one passes straight through.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "core/spin_barrier.h"

namespace lintra {
namespace {

// Each thread adds 1 to `done` in phase r, waits, then checks that all threads' adds of phase r are
// in (done == threads·(r + 1)), waits again so no one starts phase r + 1 while others still check.
int phases_seen_out_of_order(int threads, int rounds, bool slow_thread) {
  SpinBarrier barrier(threads);
  std::atomic<int> done{0}, violations{0};
  std::vector<std::thread> team;
  for (int id = 0; id < threads; ++id)
    team.emplace_back([&, id] {
      for (int r = 0; r < rounds; ++r) {
        if (slow_thread && id == 0 && r % 8 == 0) std::this_thread::sleep_for(std::chrono::microseconds(300));
        done.fetch_add(1);
        barrier.wait();
        if (done.load() != threads * (r + 1)) violations.fetch_add(1);
        barrier.wait();
      }
    });
  for (auto& t : team) t.join();
  return violations.load();
}

TEST(CoreSpinBarrier, NoThreadLeavesAPhaseEarly) {
  EXPECT_EQ(phases_seen_out_of_order(1, 100, false), 0);  // a team of one never blocks
  EXPECT_EQ(phases_seen_out_of_order(2, 5000, false), 0);
  EXPECT_EQ(phases_seen_out_of_order(3, 2000, false), 0);
}

TEST(CoreSpinBarrier, SleepingWaitersAreWoken) {
  EXPECT_EQ(phases_seen_out_of_order(2, 400, true), 0);
  EXPECT_EQ(phases_seen_out_of_order(3, 400, true), 0);
}

}  // namespace
}  // namespace lintra
