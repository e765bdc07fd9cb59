// train_state.h — save and restore: what a checkpoint holds of a training run (DESIGN.md §7): the
// model's parameters and generators, the optimizer's step and slots, the schedule, the loader's
// position, and the loop's own counters (TrainState).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "data/loader.h"
#include "nn/models/model.h"
#include "train/checkpoint/checkpoint.h"
#include "train/optim/optimizer.h"
#include "train/optim/schedule.h"

namespace lintra::train {

// The training loop's counters, saved in /trainer and /loss_history.
struct TrainState {
  int64_t step = 0;       // optimizer updates done
  double best = INFINITY; // best evaluation of train.best_metric so far (lower is better)
  int64_t nan_skips = 0;  // consecutive skipped updates
  double wall_time = 0;   // seconds of training, all processes of the run together
  double train_seconds = 0;  // of those, the seconds spent in updates (what train.time_budget counts)
  std::vector<double> loss_history;  // the training loss of every update
};

// Everything above as one checkpoint; yaml is the resolved config, seed the loader's shuffle seed.
// Tensors are copied to the CPU, so a checkpoint does not depend on the device the model trained on;
// restore_checkpoint copies them to the device of the model's parameters (and the optimizer's slots).
CheckpointData collect_checkpoint(const nn::Model& model, const Optimizer& opt, const Schedule& sched,
                                  const data::DataLoader& loader, const TrainState& st, const std::string& yaml,
                                  uint64_t seed);
// The inverse: checks every name and shape against the model and optimizer first and throws
// listing all mismatches at once, then restores each part.
void restore_checkpoint(const CheckpointData& c, nn::Model& model, Optimizer& opt, Schedule& sched,
                        data::DataLoader& loader, TrainState& st);

// Copies the checkpoint's /model tensors into the model's parameters (names and shapes already checked).
void copy_parameters(nn::Model& model, const CheckpointData& c);

}  // namespace lintra::train
