// experiments/kernels/lab_timer.h — the labs' timer: the best of rounds of 5 timings of f, one warm-up
// call first, until at least min_total_s seconds have passed.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>

namespace lintra::lab {

inline double best_seconds(const std::function<void()>& f, double min_total_s) {
  using Clock = std::chrono::steady_clock;
  f();
  double best = 1e30;
  const auto start = Clock::now();
  while (std::chrono::duration<double>(Clock::now() - start).count() < min_total_s)
    for (int r = 0; r < 5; ++r) {
      const auto t0 = Clock::now();
      f();
      best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
    }
  return best;
}

}  // namespace lintra::lab
