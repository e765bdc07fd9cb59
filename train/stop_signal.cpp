#include "train/stop_signal.h"

#include <unistd.h>

#include <atomic>

namespace lintra::train {

namespace {

std::atomic<int> g_signals{0};

extern "C" void on_stop_signal(int sig) {
  // Async-signal-safe: an atomic counter and _exit only.
  if (g_signals.fetch_add(1) >= 1 && sig == SIGINT) _exit(130);
}

}  // namespace

StopSignal::StopSignal() {
  g_signals = 0;
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  // On the thread's alternate stack where it has one: a signal that lands inside oneDNN's float32
  // GEMM must not write its frame at that code's rsp, which points into the heap
  // (core/cpu/signal_stack.h).
  sa.sa_flags = SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int_);
  sigaction(SIGTERM, &sa, &old_term_);
  sigaction(SIGUSR1, &sa, &old_usr1_);
}

StopSignal::~StopSignal() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
  sigaction(SIGUSR1, &old_usr1_, nullptr);
}

bool StopSignal::stop_requested() const { return g_signals.load() > 0; }

}  // namespace lintra::train
