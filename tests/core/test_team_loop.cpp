// test_team_loop.cpp — invariants of the CPU kernels' parallel loop (core/cpu/team_loop.h): every item
// runs exactly once, serially where asked or nested, each taking-part thread makes one state; and a
// team thread that stops running in an item (here: it sleeps, as a descheduled thread would not run)
// swaps cores with the thread that ran out of items, leaving the team pinned one thread per CPU.
#include <gtest/gtest.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <set>
#include <string_view>
#include <thread>
#include <vector>

#include "core/cpu/team_loop.h"
#include "core/threading.h"

namespace lintra::kernels::cpu {
namespace {

TEST(CoreTeamLoop, RunsEveryItemExactlyOnce) {
  for (int64_t n : {0, 1, 2, 3, 64, 10'007}) {
    std::vector<std::atomic<int>> seen(static_cast<size_t>(n));
    team_for(n, true, [&](int64_t i) { seen[size_t(i)].fetch_add(1); });
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(seen[size_t(i)].load(), 1) << "item " << i << " of " << n;
  }
}

TEST(CoreTeamLoop, RunsSeriallyWhenAskedAndInsideAParallelRegion) {
  const pthread_t caller = pthread_self();
  std::atomic<int> elsewhere{0};
  team_for(1000, false, [&](int64_t) { elsewhere += pthread_equal(pthread_self(), caller) ? 0 : 1; });
  EXPECT_EQ(elsewhere.load(), 0) << "a serial loop ran items on other threads";

  std::atomic<int> nested_elsewhere{0}, items{0}, region_threads{0};
#pragma omp parallel num_threads(2)
  {
    region_threads.fetch_add(1);
    const pthread_t me = pthread_self();
    team_for(100, true, [&](int64_t) {
      items.fetch_add(1);
      nested_elsewhere += pthread_equal(pthread_self(), me) ? 0 : 1;
    });
  }
  EXPECT_EQ(nested_elsewhere.load(), 0) << "a nested loop left its thread";
  EXPECT_EQ(items.load(), 100 * region_threads.load()) << "each thread of the region runs its own loop whole";
}

TEST(CoreTeamLoop, EachThreadThatTakesPartMakesOneStateAndUsesItsOwn) {
  struct State {
    pthread_t owner;
  };
  std::atomic<int> made{0}, foreign{0}, items{0};
  team_for_with(
      5000, true,
      [&] {
        made.fetch_add(1);
        return State{pthread_self()};
      },
      [&](int64_t, State& s) {
        items.fetch_add(1);
        foreign += pthread_equal(s.owner, pthread_self()) ? 0 : 1;
      });
  EXPECT_EQ(items.load(), 5000);
  EXPECT_EQ(foreign.load(), 0) << "an item saw another thread's state";
  EXPECT_GE(made.load(), 1);
  EXPECT_LE(made.load(), omp_get_max_threads()) << "a thread made its state more than once";
}

// The CPU each team thread is pinned to, by team thread number.
std::vector<int> team_cpus(int team) {
  std::vector<int> cpu(size_t(team), -1);
#pragma omp parallel num_threads(team)
  {
    cpu_set_t s;
    CPU_ZERO(&s);
    pthread_getaffinity_np(pthread_self(), sizeof s, &s);
    if (CPU_COUNT(&s) == 1)
      for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &s)) cpu[size_t(omp_get_thread_num())] = c;
  }
  return cpu;
}

TEST(CoreTeamLoop, AThreadThatStopsRunningInAnItemSwapsCoresWithTheIdleOne) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  const int cpus = CPU_COUNT(&allowed);
  if (cpus < 2) GTEST_SKIP() << "one CPU: no team to pin";
  if (std::getenv("OMP_PROC_BIND") != nullptr || std::getenv("LINTRA_PIN_THREADS") != nullptr)
    GTEST_SKIP() << "the environment sets the binding";
  if (const char* e = std::getenv("LINTRA_TEAM_EXCHANGE"); e != nullptr && std::string_view(e) == "0")
    GTEST_SKIP() << "LINTRA_TEAM_EXCHANGE=0 turns the exchange off";
  const int before = num_threads();
  set_num_threads(cpus);
  ASSERT_TRUE(threads_pinned());

  // Item 0 sleeps (it does not run, as a thread the OS has descheduled); the others are short, so the
  // threads that take them run out of items while it sleeps and watch it. A thread that came too late
  // to take an item does not watch: a few tries.
  const int64_t exchanges = pinned_cpu_exchanges();
  for (int attempt = 0; attempt < 10 && pinned_cpu_exchanges() == exchanges; ++attempt) {
    team_for(4 * cpus, true, [&](int64_t i) {
      if (i == 0) std::this_thread::sleep_for(std::chrono::milliseconds(30));
    });
  }
  EXPECT_GT(pinned_cpu_exchanges(), exchanges) << "no thread moved off the core of the sleeping one";

  // Still one thread per CPU, each where its seat says.
  const std::vector<int> cpu = team_cpus(cpus);
  std::set<int> distinct;
  for (int i = 0; i < cpus; ++i) {
    ASSERT_GE(cpu[size_t(i)], 0) << "thread " << i << " is not pinned to one CPU";
    EXPECT_TRUE(CPU_ISSET(cpu[size_t(i)], &allowed));
    distinct.insert(cpu[size_t(i)]);
    const PinnedSeat* seat = pinned_seat(i);
    ASSERT_NE(seat, nullptr);
    EXPECT_EQ(seat->cpu->load(), cpu[size_t(i)]) << "thread " << i << "'s seat names another CPU";
  }
  EXPECT_EQ(int(distinct.size()), cpus) << "two threads pinned to one CPU";

  // Items keep running exactly once after the moves.
  std::vector<std::atomic<int>> seen(1000);
  team_for(1000, true, [&](int64_t i) { seen[size_t(i)].fetch_add(1); });
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(seen[size_t(i)].load(), 1);
  set_num_threads(before);
}

}  // namespace
}  // namespace lintra::kernels::cpu
