// test_spin_barrier.cpp — core/spin_barrier.h.
// Invariants: no thread leaves phase r before every thread has finished its work of phase r, over
// many consecutive phases (the barrier is reusable at once), for teams of 2 and 3 threads — more
// threads than these 2-core machines have, so waiters also take the sleeping path — and with one
// thread slowed at every phase so that the others spin out and sleep; a team of one passes straight through.
// sleeps() counts those sleeps (none for a team of one). core/team_backoff.h: the team steps aside after
// a window of mostly sleepy steps, for exactly kSoloSteps steps, and never on a window of quiet ones.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "core/spin_barrier.h"
#include "core/team_backoff.h"

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

TEST(CoreSpinBarrier, CountsTheWaitsThatSlept) {
  SpinBarrier alone(1);
  for (int i = 0; i < 100; ++i) alone.wait();
  EXPECT_EQ(alone.sleeps(), 0);
  // The second thread arrives 50 ms late at each of 3 phases: far past the spin (about 100 µs), so the
  // first one sleeps at each.
  SpinBarrier pair(2);
  std::thread late([&] {
    for (int r = 0; r < 3; ++r) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      pair.wait();
    }
  });
  for (int r = 0; r < 3; ++r) pair.wait();
  late.join();
  EXPECT_EQ(pair.sleeps(), 3);
}

TEST(CoreTeamBackoff, StepsAsideAfterASleepyWindowThenTriesTheTeamAgain) {
  TeamBackoff b;
  // Quiet windows (fewer than kSleepySteps sleepy steps each) never back off.
  for (int i = 0; i < 10 * TeamBackoff::kWindow; ++i) {
    ASSERT_TRUE(b.use_team());
    b.record(true, i % TeamBackoff::kWindow < TeamBackoff::kSleepySteps - 1);
  }
  EXPECT_EQ(b.backoffs(), 0);
  // A sleepy window: the team steps aside for exactly kSoloSteps steps.
  for (int i = 0; i < TeamBackoff::kWindow; ++i) {
    ASSERT_TRUE(b.use_team());
    b.record(true, i < TeamBackoff::kSleepySteps);
  }
  EXPECT_EQ(b.backoffs(), 1);
  for (int64_t i = 0; i < TeamBackoff::kSoloSteps; ++i) {
    ASSERT_FALSE(b.use_team()) << "solo step " << i;
    b.record(false, false);
  }
  EXPECT_TRUE(b.use_team());
  // Still contended: the next window backs off again.
  for (int i = 0; i < TeamBackoff::kWindow; ++i) b.record(true, true);
  EXPECT_EQ(b.backoffs(), 2);
  EXPECT_FALSE(b.use_team());
}

}  // namespace
}  // namespace lintra
