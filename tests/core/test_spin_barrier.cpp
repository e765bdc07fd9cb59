// test_spin_barrier.cpp — core/spin_barrier.h.
// Invariants: no thread leaves phase r before every thread has finished its work of phase r, over
// many consecutive phases (the barrier is reusable at once), for teams of 2 and 3 threads — more
// threads than these 2-core machines have, so waiters also take the sleeping path — and with one
// thread slowed at every phase so that the others spin out and sleep; a team of one passes straight through.
// core/team_backoff.h: kProbe team steps, kProbe one-thread steps, then the faster for kRun steps.
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

// Drives the policy with step times: `team_s` for team steps, `solo_s` for one-thread steps; returns
// how each of `steps` steps ran (true: team).
std::vector<bool> choices(TeamBackoff& b, int64_t steps, double team_s, double solo_s) {
  std::vector<bool> ran;
  for (int64_t i = 0; i < steps; ++i) {
    const bool team = b.use_team();
    ran.push_back(team);
    b.record(team, team ? team_s : solo_s);
  }
  return ran;
}

TEST(CoreTeamBackoff, ProbesBothThenRunsTheFasterAndProbesAgain) {
  const int64_t P = TeamBackoff::kProbe, R = TeamBackoff::kRun;
  // A quiet machine (the team is faster): P team steps, P solo steps, then R team steps, then again.
  TeamBackoff quiet;
  const std::vector<bool> q = choices(quiet, 2 * (2 * P + R), 1.0, 1.8);
  for (int64_t i = 0; i < int64_t(q.size()); ++i) {
    const int64_t in_cycle = i % (2 * P + R);
    EXPECT_EQ(q[size_t(i)], in_cycle < P || in_cycle >= 2 * P) << "step " << i;
  }
  EXPECT_EQ(quiet.backoffs(), 0);
  // Contended (one thread is faster): after the probes, R steps on one thread; the next probe again.
  TeamBackoff busy;
  const std::vector<bool> c = choices(busy, 2 * (2 * P + R), 5.0, 1.9);
  for (int64_t i = 0; i < int64_t(c.size()); ++i) EXPECT_EQ(c[size_t(i)], i % (2 * P + R) < P) << "step " << i;
  EXPECT_EQ(busy.backoffs(), 2);
  // The load goes away: the next probe picks the team again.
  choices(busy, 2 * P, 1.0, 1.9);
  EXPECT_TRUE(busy.use_team());
}

}  // namespace
}  // namespace lintra
