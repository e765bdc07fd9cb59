// stored_config.h — resuming a run directory: the config it was made with (config.yaml, re-resolved
// against today's schema) against the one given now, key by key.
//
// Two keys may differ, and only upward, so that a finished run can be continued: train.steps
// (raised) and train.time_budget (raised, or set to 0: no budget). They only say when the loop
// stops; nothing they change is in a checkpoint's shapes or in what an update computes. `device`
// may change either way (a run trained on a GPU resumes on the CPU and the other way round):
// checkpoints hold CPU tensors, and it says where an update is computed, not what. Any other
// difference (a shape, a data set, a learning rate, a seed …) makes the run another experiment and
// is refused, naming every differing key with both values.
#pragma once

#include <string>
#include <vector>

#include "train/config/config.h"

namespace lintra::train {

// One key that a resumed run raised (or, for device, changed): "train.steps", "200", "400".
struct RaisedKey {
  std::string key, before, after;
};

// The keys that grew from `stored` to `now` (empty when the two are equal). Throws lintra::Error
// starting "<dir>: the run directory was made with another config" and listing every other
// difference (a lowered train.steps or train.time_budget among them) when there is one.
std::vector<RaisedKey> compare_stored_config(const Config& stored, const Config& now, const std::string& dir);

}  // namespace lintra::train
