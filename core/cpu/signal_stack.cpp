#include "core/cpu/signal_stack.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <memory>

#include "core/error.h"

namespace lintra::kernels::cpu {

namespace {

size_t alternate_stack_bytes() {
  const long dynamic = sysconf(_SC_SIGSTKSZ);  // accounts for this CPU's register state (AVX-512)
  return std::max<size_t>(size_t(64) << 10, dynamic > 0 ? size_t(dynamic) * 4 : 0);
}

// The thread's alternate stack while it lives: installed on construction unless the thread has one,
// disabled and freed at thread exit.
class AlternateStack {
 public:
  AlternateStack() {
    stack_t current{};
    LINTRA_CHECK(sigaltstack(nullptr, &current) == 0, "sigaltstack: cannot read this thread's signal stack");
    if (!(current.ss_flags & SS_DISABLE)) return;  // someone gave the thread one already
    const size_t bytes = alternate_stack_bytes();
    memory_ = std::make_unique<char[]>(bytes);
    stack_t mine{};
    mine.ss_sp = memory_.get();
    mine.ss_size = bytes;
    LINTRA_CHECK(sigaltstack(&mine, nullptr) == 0, "sigaltstack: cannot install a {}-byte signal stack", bytes);
  }
  ~AlternateStack() {
    if (!memory_) return;
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, nullptr);
  }
  AlternateStack(const AlternateStack&) = delete;
  AlternateStack& operator=(const AlternateStack&) = delete;

 private:
  std::unique_ptr<char[]> memory_;
};

}  // namespace

void ensure_alternate_signal_stack() { thread_local AlternateStack stack; }

}  // namespace lintra::kernels::cpu
