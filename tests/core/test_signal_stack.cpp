// test_signal_stack.cpp — invariant: signals handled while a thread runs float32 products leave the
// heap and the results intact. oneDNN 2.6's float32 GEMM kernels point rsp into the heap while they
// run (K > 84), so a handler's frame written at rsp would corrupt the heap; lintra gives each thread
// that enters them an alternate signal stack and installs its handlers with SA_ONSTACK
// (core/cpu/signal_stack.h). Here a second thread sends a SIGUSR2 every few microseconds to the thread
// running narrow products (the ones cpu/matmul.cpp gives oneDNN), on the main thread and on a fresh
// thread; each product must match the float64 oracle and the process must live. Without the alternate
// stack this test crashed (heap corruption) or mismatched within its first run. With the oneDNN route
// off (LINTRA_ONEDNN_SGEMM=0) the same products go to OpenBLAS and the test still holds.
//
// Tolerance: entries in [−½, ½], K = 512: float32 atol K·u·Σ|a·b| ≤ 512·6e-8·128 ≈ 4e-3 worst case. 120 × 512 · 512 × 32 is under
// 2^21 multiply-adds, so it runs as one call on the signalled thread.
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "core/ops.h"
#include "core/reference/reference.h"
#include "tests/core/core_test_util.h"
#ifdef LINTRA_WITH_DNNL
#include "core/cpu/signal_stack.h"
#endif

namespace lintra {
namespace {

std::atomic<int> g_handled{0};
extern "C" void count_signal(int) { g_handled.fetch_add(1, std::memory_order_relaxed); }

// SIGUSR2 counted by a handler on the alternate stack, as lintra installs its own; restored after.
class CountingHandler {
 public:
  CountingHandler() {
    struct sigaction sa {};
    sa.sa_handler = count_signal;
    sa.sa_flags = SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR2, &sa, &old_);
  }
  ~CountingHandler() { sigaction(SIGUSR2, &old_, nullptr); }

 private:
  struct sigaction old_ {};
};

// Runs `rounds` products a·b on the calling thread while another thread signals it; returns how many
// of them differed from the oracle.
int products_under_signals(const Tensor& a, const Tensor& b, const Tensor& expected, int rounds) {
  const pthread_t target = pthread_self();
  std::atomic<bool> done{false};
  std::thread sender([&] {
    while (!done.load()) {
      pthread_kill(target, SIGUSR2);
      std::this_thread::sleep_for(std::chrono::microseconds(5));
    }
  });
  int wrong = 0;
  for (int i = 0; i < rounds; ++i)
    if (!testing::close_to(ops::matmul(a, b), expected, testing::Tol{0, 4e-3})) ++wrong;
  done = true;
  sender.join();
  return wrong;
}

TEST(CoreSignalStack, SignalsDuringNarrowProductsLeaveTheHeapAndResultsIntact) {
  Generator gen(91);
  const Tensor a = Tensor::uniform({120, 512}, gen, -0.5, 0.5), b = Tensor::uniform({512, 32}, gen, -0.5, 0.5);
  const Tensor expected = reference::matmul(a, b);
  CountingHandler handler;
  g_handled = 0;
  EXPECT_EQ(products_under_signals(a, b, expected, 400), 0) << "on the main thread";
  int wrong_on_a_new_thread = -1;
  std::thread([&] { wrong_on_a_new_thread = products_under_signals(a, b, expected, 400); }).join();
  EXPECT_EQ(wrong_on_a_new_thread, 0) << "on a thread started for it";
  EXPECT_GT(g_handled.load(), 100) << "too few signals arrived for the test to mean anything";
}

#ifdef LINTRA_WITH_DNNL
// The helper gives a thread without one a stack of at least 64 KiB, and keeps one the thread has
// (under AddressSanitizer every thread starts with ASan's own, which must stay).
TEST(CoreSignalStack, EachThreadGetsAnAlternateStackOnceAndKeepsItsOwn) {
  std::thread([] {
    stack_t before{};
    ASSERT_EQ(sigaltstack(nullptr, &before), 0);
    kernels::cpu::ensure_alternate_signal_stack();
    stack_t s{};
    ASSERT_EQ(sigaltstack(nullptr, &s), 0);
    EXPECT_FALSE(s.ss_flags & SS_DISABLE);
    if (before.ss_flags & SS_DISABLE)
      EXPECT_GE(s.ss_size, size_t(64) << 10);
    else
      EXPECT_EQ(s.ss_sp, before.ss_sp) << "the thread's own alternate stack was replaced";
  }).join();
  std::thread([] {
    static char own[size_t(128) << 10];
    stack_t mine{};
    mine.ss_sp = own;
    mine.ss_size = sizeof own;
    ASSERT_EQ(sigaltstack(&mine, nullptr), 0);
    kernels::cpu::ensure_alternate_signal_stack();
    stack_t s{};
    ASSERT_EQ(sigaltstack(nullptr, &s), 0);
    EXPECT_EQ(s.ss_sp, static_cast<void*>(own));
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, nullptr);
  }).join();
}
#endif

}  // namespace
}  // namespace lintra
