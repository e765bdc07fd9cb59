// stop_signal.h — the trainer's stop check. While a StopSignal lives, the first SIGINT or SIGTERM
// asks for a clean stop at the next update boundary (stop_requested() turns true; the trainer then
// checkpoints and exits with status 130); a second SIGINT aborts at once. The previous handlers come
// back when it is destroyed.
#pragma once

#include <csignal>

namespace lintra::train {

class StopSignal {
 public:
  StopSignal();
  ~StopSignal();
  StopSignal(const StopSignal&) = delete;
  StopSignal& operator=(const StopSignal&) = delete;
  bool stop_requested() const;

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

}  // namespace lintra::train
