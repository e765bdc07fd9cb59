// spin_barrier.h — a reusable barrier for a fixed team of threads that spins (with a pause hint)
// before it sleeps: for phases of a few microseconds, as in the per-token steps of recurrent
// generation, where sleeping at once (a futex wait and wake-up per phase) costs more than the
// phase. A waiter that has spun kSpins times sleeps on the generation counter (C++20 atomic wait,
// a futex on Linux), so a machine with more runnable threads than cores still makes progress; the
// last thread to arrive resets the count, advances the generation and wakes sleepers only if there
// are any. A team of one returns at once.
#pragma once

#include <atomic>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace lintra {

class SpinBarrier {
 public:
  explicit SpinBarrier(int threads) : threads_(threads) {}
  SpinBarrier(const SpinBarrier&) = delete;
  SpinBarrier& operator=(const SpinBarrier&) = delete;

  void wait() {
    if (threads_ <= 1) return;
    const unsigned generation = generation_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) == threads_ - 1) {
      arrived_.store(0, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_seq_cst);
      if (sleepers_.load(std::memory_order_seq_cst) > 0) generation_.notify_all();
      return;
    }
    for (int spins = 0; spins < kSpins; ++spins) {
      if (generation_.load(std::memory_order_acquire) != generation) return;
      pause();
    }
    // Either the last arrival sees this sleeper and notifies, or this thread sees its new
    // generation before sleeping (both sides are sequentially consistent).
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    while (generation_.load(std::memory_order_seq_cst) == generation) generation_.wait(generation);
    sleepers_.fetch_sub(1, std::memory_order_relaxed);
  }

 private:
  static constexpr int kSpins = 1 << 12;
  static void pause() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#endif
  }

  const int threads_;
  std::atomic<int> arrived_{0};
  std::atomic<unsigned> generation_{0};
  std::atomic<int> sleepers_{0};
};

}  // namespace lintra
