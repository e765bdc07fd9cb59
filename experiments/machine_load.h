// machine_load.h — how much of the machine other work took while a row was measured, so that a
// results file can mark a row timed on a busy machine instead of presenting its speed as lintra's.
//
// A sample reads the CPU seconds the whole machine spent busy (/proc/stat: user, nice, system, irq,
// softirq, and steal — time the hypervisor gave to other guests) and the seconds this process used
// (getrusage, all threads). Between two samples, others = machine busy − this process, and
// other_share = others / (wall seconds × CPUs): 0 on a quiet machine, 0.5 when another job held one
// of two cores the whole time.
#pragma once

#include <string>

namespace lintra::experiments {

struct LoadSample {
  double machine_busy_s = 0;  // all CPUs, since boot
  double self_s = 0;          // this process, user + system
  double wall_s = 0;          // a steady clock
  int cpus = 1;
};

LoadSample sample_load();
// The share of the machine's CPU time that other work took between a and b (0 when b == a).
double other_share(const LoadSample& a, const LoadSample& b);

// Rows whose other_share exceeds this are marked busy in the results files.
constexpr double kBusyShare = 0.15;

// "quiet" or "busy: other work took 37% of the CPU" (negative share: "not timed by this command").
std::string load_note(double share);

}  // namespace lintra::experiments
