// team_backoff.h — whether a team of threads or one thread should run the next steps of work made of
// many short phases separated by barriers (core/spin_barrier.h), as in the recurrent engine's tokens
// (nn/models/image_recurrent_engine.cpp: six barriers per layer, phases of about 10 µs at batch 1).
//
// When another process holds one of the cores, the OS deschedules a team member for whole time slices
// (milliseconds) and every barrier waits for it: a team of two then runs several times slower than one
// thread alone (measured: batch-1 generation 5× slower with a busy loop on one of two cores, against
// 1.9× for one thread). Which is faster depends on the machine and its load, so it is measured, not
// guessed: kProbe steps on the team, kProbe steps on one thread, then the faster of the two (by the
// mean step time) for the next kRun steps, and again. On a quiet machine the team wins and the probe
// costs kProbe slower steps in kRun + 2·kProbe; under contention one thread wins within 2·kProbe steps.
// Pure logic: the caller times each step and says how it ran.
#pragma once

#include <cstdint>

namespace lintra {

class TeamBackoff {
 public:
  static constexpr int kProbe = 8;
  static constexpr int64_t kRun = 256;

  // Whether the next step should run on the whole team.
  bool use_team() const { return phase_ == Phase::probe_team || (phase_ == Phase::run && team_wins_); }

  // The step just run: as a team or not, and its wall time in seconds.
  void record(bool ran_as_team, double seconds) {
    if (phase_ == Phase::run) {
      if (++done_ == kRun) start(Phase::probe_team);
      return;
    }
    (ran_as_team ? team_s_ : solo_s_) += seconds;
    if (++done_ < kProbe) return;
    if (phase_ == Phase::probe_team) {
      start(Phase::probe_solo);
      return;
    }
    team_wins_ = team_s_ <= solo_s_;
    if (!team_wins_) ++backoffs_;
    start(Phase::run);
  }

  // How many probes so far found one thread faster than the team.
  int64_t backoffs() const { return backoffs_; }

 private:
  enum class Phase { probe_team, probe_solo, run };
  void start(Phase p) {
    if (p == Phase::probe_team) team_s_ = solo_s_ = 0;
    phase_ = p;
    done_ = 0;
  }

  Phase phase_ = Phase::probe_team;
  int64_t done_ = 0, backoffs_ = 0;
  double team_s_ = 0, solo_s_ = 0;
  bool team_wins_ = true;
};

}  // namespace lintra
