// team_backoff.h — when a team of threads should step aside for one thread: a policy for work made of
// many short phases separated by barriers (core/spin_barrier.h), as in the recurrent engine's tokens
// (nn/models/image_recurrent_engine.cpp: six barriers per layer, phases of about 10 µs at batch 1).
//
// When another process holds one of the cores, the OS deschedules a team member for whole time slices
// (milliseconds) and every barrier waits for it: a team of two then runs several times slower than one
// thread alone (measured: batch-1 generation 4.75× slower with a busy loop on one of two cores). The
// sign is cheap to read: a barrier wait that spins out (about 100 µs, far above a quiet phase) and
// sleeps. The policy looks at windows of kWindow team steps; when at least kSleepySteps of a window's
// steps slept, the next kSoloSteps steps run on one thread, then the team is tried again (one window).
// On a quiet machine a step sleeps only when the OS interrupts it, so the team stays. Pure logic, no
// clock: the caller says after each step whether it ran as a team and whether a barrier slept.
#pragma once

#include <cstdint>

namespace lintra {

class TeamBackoff {
 public:
  static constexpr int kWindow = 8;
  static constexpr int kSleepySteps = 4;
  static constexpr int64_t kSoloSteps = 256;

  // Whether the next step should run on the whole team.
  bool use_team() const { return solo_left_ == 0; }

  // The step just run: as a team or not, and whether one of its barrier waits slept.
  void record(bool ran_as_team, bool slept) {
    if (!ran_as_team) {
      if (solo_left_ > 0) --solo_left_;
      return;
    }
    ++window_steps_;
    if (slept) ++window_sleepy_;
    if (window_steps_ < kWindow) return;
    if (window_sleepy_ >= kSleepySteps) {
      solo_left_ = kSoloSteps;
      ++backoffs_;
    }
    window_steps_ = window_sleepy_ = 0;
  }

  // How many times the team has stepped aside so far.
  int64_t backoffs() const { return backoffs_; }

 private:
  int window_steps_ = 0, window_sleepy_ = 0;
  int64_t solo_left_ = 0, backoffs_ = 0;
};

}  // namespace lintra
