#include "train/optim/schedule.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace lintra::train {

Schedule::Schedule(ScheduleOptions o) : o_(std::move(o)) {
  LINTRA_CHECK(o_.name == "constant" || o_.name == "step" || o_.name == "plateau",
               "schedule: unknown name '{}' (valid: constant, step, plateau)", o_.name);
  LINTRA_CHECK(o_.factor > 0 && o_.factor <= 1, "schedule: factor must be in (0, 1], got {}", o_.factor);
}

double Schedule::lr_at(int64_t step) const {
  double lr = o_.base_lr;
  if (o_.name == "step") {
    for (int64_t m : o_.milestones)
      if (step >= m) lr *= o_.factor;
  } else if (o_.name == "plateau") {
    lr = std::max(o_.min_lr, lr * plateau_scale_);
  }
  if (o_.warmup_steps > 0) lr *= std::min(1.0, double(step + 1) / double(o_.warmup_steps));
  return lr;
}

void Schedule::observe(double metric) {
  if (o_.name != "plateau" || !std::isfinite(metric)) return;
  if (!has_best_ || metric < best_ * (1 - o_.threshold)) {
    best_ = metric;
    has_best_ = true;
    bad_evals_ = 0;
    return;
  }
  if (++bad_evals_ > o_.patience) {
    plateau_scale_ *= o_.factor;
    bad_evals_ = 0;
  }
}

std::map<std::string, double> Schedule::state() const {
  return {{"plateau_scale", plateau_scale_}, {"best", best_}, {"has_best", has_best_ ? 1.0 : 0.0},
          {"bad_evals", double(bad_evals_)}};
}

void Schedule::load_state(const std::map<std::string, double>& s) {
  auto get = [&](const char* k) {
    auto it = s.find(k);
    LINTRA_CHECK(it != s.end(), "schedule state: '{}' is missing", k);
    return it->second;
  };
  plateau_scale_ = get("plateau_scale");
  best_ = get("best");
  has_best_ = get("has_best") != 0;
  bad_evals_ = int64_t(get("bad_evals"));
}

}  // namespace lintra::train
