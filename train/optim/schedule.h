// schedule.h — learning-rate schedules, applied once per optimizer update:
//   constant                          lr = base
//   step       (copy task)            lr = base · factor^(number of milestones ≤ step)
//   plateau    (WSJ)                  lr ← lr · factor when the validation metric has not improved
//                                     by more than threshold (relative) for `patience` evaluations
//   warmup (any of the above)         lr · min(1, (step + 1) / warmup_steps)
// The state is a few numbers, saved in the checkpoint's /scheduler attributes.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace lintra::train {

struct ScheduleOptions {
  std::string name = "constant";  // constant | step | plateau
  double base_lr = 1e-3;
  std::vector<int64_t> milestones;  // step
  double factor = 0.1;              // step, plateau
  int64_t patience = 2;             // plateau: evaluations without improvement
  double threshold = 1e-3;          // plateau: relative improvement that counts
  double min_lr = 0;                // plateau
  int64_t warmup_steps = 0;
  std::string monitor;              // plateau: the evaluation metric observe() is given (empty: the trainer's best metric)
};

class Schedule {
 public:
  explicit Schedule(ScheduleOptions o);
  // The learning rate for update number `step` (0-based).
  double lr_at(int64_t step) const;
  // Plateau: report a validation metric (lower is better) after an evaluation.
  void observe(double metric);
  const std::string& name() const { return o_.name; }
  std::map<std::string, double> state() const;
  void load_state(const std::map<std::string, double>& s);

 private:
  ScheduleOptions o_;
  double plateau_scale_ = 1.0;
  double best_ = 0;
  bool has_best_ = false;
  int64_t bad_evals_ = 0;
};

}  // namespace lintra::train
