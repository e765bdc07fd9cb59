// stop_signal.h — the trainer's stop check. While a StopSignal lives, the first SIGINT, SIGTERM or
// SIGUSR1 asks for a clean stop at the next update boundary (stop_requested() turns true; the trainer
// then checkpoints and exits with status 130); a second SIGINT aborts at once. The previous handlers
// come back when it is destroyed. SIGUSR1 is the one launchers pass on to every rank as it is
// (mpirun forwards it; Slurm sends it ahead of a time limit with --signal=USR1@SECONDS); mpirun turns
// a SIGINT or SIGTERM into SIGTERM for every rank followed by SIGKILL a second later.
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
  struct sigaction old_int_ {}, old_term_ {}, old_usr1_ {};
};

}  // namespace lintra::train
