// test_threading.cpp — invariant: set_num_threads pins team thread i to the i-th CPU this process may
// use when the team has exactly as many threads as there are such CPUs, each thread to a different
// one, and gives every thread the whole set back when the team shrinks (core/threading.h).
#include <gtest/gtest.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>

#include <cstdlib>
#include <set>
#include <vector>

#include "core/threading.h"

namespace lintra {
namespace {

cpu_set_t affinity_of_this_thread() {
  cpu_set_t s;
  CPU_ZERO(&s);
  pthread_getaffinity_np(pthread_self(), sizeof s, &s);
  return s;
}

TEST(CoreThreading, PinsOneThreadPerCpuWhenTheTeamFillsTheProcessCpusAndUnpinsWhenItShrinks) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  const int cpus = CPU_COUNT(&allowed);
  if (cpus < 2) GTEST_SKIP() << "one CPU: nothing to pin";
  if (std::getenv("OMP_PROC_BIND") != nullptr || std::getenv("LINTRA_PIN_THREADS") != nullptr)
    GTEST_SKIP() << "the environment sets the binding";
  const int before = num_threads();

  set_num_threads(cpus);
  ASSERT_TRUE(threads_pinned());
  std::vector<cpu_set_t> seen(static_cast<size_t>(cpus));
#pragma omp parallel num_threads(cpus)
  seen[size_t(omp_get_thread_num())] = affinity_of_this_thread();
  std::set<int> distinct;
  for (int i = 0; i < cpus; ++i) {
    EXPECT_EQ(CPU_COUNT(&seen[size_t(i)]), 1) << "thread " << i << " is not pinned to one CPU";
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &seen[size_t(i)])) {
        EXPECT_TRUE(CPU_ISSET(cpu, &allowed)) << "thread " << i << " pinned outside the process's CPUs";
        distinct.insert(cpu);
      }
  }
  EXPECT_EQ(int(distinct.size()), cpus) << "two threads pinned to one CPU";

  set_num_threads(1);
  EXPECT_FALSE(threads_pinned());
  const cpu_set_t main_now = affinity_of_this_thread();
  EXPECT_TRUE(CPU_EQUAL(&main_now, &allowed)) << "the main thread did not get the whole set back";

  set_num_threads(before);
}

}  // namespace
}  // namespace lintra
