// trainer.h — `lintra train`: the one training loop for every experiment.
//
// A Trainer is built from a TrainCommand (set-up: resolves the config — files merged left to right,
// then key=value overrides —, builds the data and, once its estimated size fits in memory, the model,
// opens the run directory (locked for this process: train/run_lock.h), builds optimizer and
// schedule, and resumes from the newest complete checkpoint when the run directory already holds this
// config), then run() repeats one update until train.steps or train.time_budget, evaluating, logging
// to metrics.jsonl and checkpointing (retention, best.h5) as the config says.
//
// A new run directory is made only once the config, the data and the model have passed their checks
// (a mistake leaves nothing on disk); an existing one is opened first, so that its lock is taken at
// once. Every error after the run directory is open goes to its train.log too.
//
// train.time_budget (seconds; 0: none) counts the seconds spent in updates — not evaluation, not
// checkpointing — over every process of the run (TrainState::train_seconds, saved in each
// checkpoint): the run stops as if it had reached train.steps (a final evaluation and checkpoint)
// at the first update that brings it to the budget, and a resumed run continues the same budget.
//
// Its parts, one member function each: set-up (the constructor), update(), evaluate(), save() and
// restore() (train/train_state.h), and the stop check (train/stop_signal.h). Two seams for what
// one process on one CPU does not need:
//   - the device the model lives on (device_, the config's `device`: checked before anything is
//     written; the model is built on the CPU and moved there, and to_device() moves each batch to
//     it; checkpoints hold CPU tensors, so a run may resume on another device);
//   - averaging gradients across processes (GradientAverager, called between backward and the
//     optimizer step), for data-parallel training.
//
// Exit status (returned, main exits with it): 0 finished; 130 stopped by SIGINT or SIGTERM after
// finishing the current update and writing a checkpoint (a second SIGINT aborts at once, without
// one). Errors are thrown as lintra::Error.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/device.h"
#include "data/loader.h"
#include "nn/models/model.h"
#include "train/checkpoint/checkpoint.h"
#include "train/config/config.h"
#include "train/evaluate.h"
#include "train/experiment_config.h"
#include "train/factories.h"
#include "train/optim/optimizer.h"
#include "train/optim/schedule.h"
#include "train/run_dir.h"
#include "train/train_state.h"

namespace lintra::train {

struct TrainCommand {
  std::vector<std::string> configs;    // YAML files, merged left to right
  std::vector<std::string> overrides;  // a.b=value / +a.b=value
  std::string run_dir;                 // empty: runs/<experiment>/<timestamp>
  bool print_config = false;           // print the resolved config and return
};

// Averages the gradients of the parameters over the processes that train together, in a fixed
// order. The trainer calls it after every backward, before the optimizer step.
class GradientAverager {
 public:
  virtual ~GradientAverager() = default;
  virtual void average(const std::vector<NamedParam>& params) = 0;
};
// One process: its gradients are already the average.
class SingleProcess final : public GradientAverager {
 public:
  void average(const std::vector<NamedParam>&) override {}
};

class Trainer {
 public:
  Trainer(Config cfg, const TrainCommand& cmd);
  // Trains until train.steps, train.time_budget or a stop signal; returns the exit status (0 or 130).
  int run();

 private:
  struct Update {
    double loss = 0;       // the mean over the accumulated batches
    double grad_norm = 0;  // global norm before clipping
    bool skipped = false;  // non-finite loss or gradient under nan_policy: skip
  };
  void open_run_dir(const std::string& dir, const TrainCommand& cmd);
  void build_data_and_model();
  void set_up_training();
  template <typename F>
  auto logged(F&& f) -> decltype(f());  // f(), its lintra::Error also written to train.log
  void say(const std::string& line);   // train.log when open, else stderr (and train.log once open)
  void resume();
  int loop();
  bool finished() const;     // train.steps reached, or the time budget spent
  bool budget_spent() const;
  void log_end();
  Update update();
  bool skip_nonfinite(double loss);
  nn::ModelBatch to_device(const data::Batch& batch) const;
  void log_window(const Update& u);
  bool evaluate(bool final);  // true when the evaluation set a new best
  std::string save(bool best);
  double wall_time() const;

  // set-up, in order
  Config cfg_;
  std::string yaml_;
  TrainOptions options_;
  int threads_;
  Schedule schedule_;
  std::vector<std::string> early_lines_;  // said before the run directory was open
  std::optional<RunDir> run_dir_;
  std::optional<CheckpointManager> checkpoints_;
  Device device_ = Device::cpu;
  DataSplits data_;
  std::shared_ptr<nn::Model> model_;
  std::vector<NamedParam> params_;
  std::unique_ptr<Optimizer> optimizer_;
  std::unique_ptr<data::DataLoader> loader_;
  std::unique_ptr<GradientAverager> averager_ = std::make_unique<SingleProcess>();
  std::string best_metric_, monitored_metric_;

  // the loop
  TrainState state_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  double wall_before_ = 0;  // seconds of training in earlier processes of this run
  std::chrono::steady_clock::time_point window_start_ = start_;
  int64_t window_items_ = 0;
  nn::MetricSums window_sums_;
};

// `lintra train`: resolves the config, then prints it (print_config) or trains.
int run_train(const TrainCommand& command);

}  // namespace lintra::train
