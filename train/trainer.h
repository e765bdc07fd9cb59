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
//   - averaging gradients across processes (GradientAverager, train/gradient_averager.h, called
//     between backward and the optimizer step), for data-parallel training.
//
// Data-parallel training (`mpirun -np K lintra train …`, DESIGN.md §10): the Trainer is given the
// job's Communicator (train/distributed/world.h) and each of the K ranks runs this same loop on its
// own threads. Rank r's loader takes rows [r·B, (r+1)·B) of every global batch of K·B (data/loader.h),
// so K ranks × batch B see exactly the samples of one rank × batch K·B; each rank's loss is weighted
// by its share of the items counted (gradient_averager.h) and the gradients summed in a fixed order,
// so every rank takes the same step, which is the step of the global batch. Every decision of the
// loop is made from values every rank has: the losses, gradients and evaluation sums are reduced
// over the ranks; the stop flag (a signal on any rank) and the seconds of training (the slowest
// rank's) are agreed once per update; so every rank stops at the same update. Rank 0 alone opens the
// run directory (its lock, train.log, metrics.jsonl, checkpoints); it gathers every rank's generators
// and loader position into each checkpoint and, on resume, sends the checkpoint it read to every
// rank. A checkpoint of another number of ranks is re-sharded (train_state.h), and train.log says how.
//
// Exit status (returned, main exits with it): 0 finished; 130 stopped by SIGINT, SIGTERM or SIGUSR1
// after finishing the current update and writing a checkpoint (a second SIGINT aborts at once,
// without one). Errors are thrown as lintra::Error.
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
#include "train/distributed/communicator.h"
#include "train/factories.h"
#include "train/gradient_averager.h"
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

class Trainer {
 public:
  // comm: the ranks that train together (one process by default).
  Trainer(Config cfg, const TrainCommand& cmd, dist::Communicator& comm = dist::single_process());
  // Trains until train.steps, train.time_budget or a stop signal; returns the exit status (0 or 130).
  int run();

 private:
  struct Update {
    double loss = 0;       // the mean over the accumulated batches
    double grad_norm = 0;  // global norm before clipping
    bool skipped = false;  // non-finite loss or gradient under nan_policy: skip
  };
  bool root() const { return comm_.is_root(); }
  void open_run_dir(const std::string& dir, const TrainCommand& cmd);
  void build_data_and_model();
  void set_up_training();
  void meet_ranks();
  template <typename F>
  auto logged(F&& f) -> decltype(f());  // f(), its lintra::Error also written to train.log
  void say(const std::string& line);   // train.log when open, else stderr (and train.log once open)
  void resume();
  int loop();
  bool finished() const;     // train.steps reached, or the time budget spent
  bool budget_spent() const;
  void log_end();
  std::string communication_summary();  // collective: each rank's share of time in collectives
  Update update();
  double weigh_loss(const nn::ModelOutput& out, double& loss_sum);
  bool skip_nonfinite(double loss);
  bool agree_to_stop(bool requested);
  void agree_on_seconds(double update_seconds);
  nn::ModelBatch to_device(const data::Batch& batch) const;
  void log_window(const Update& u);
  std::map<std::string, double> window_metrics();  // collective: the window's sums over the ranks
  void log(const std::string& line);               // rank 0: train.log and stderr
  bool evaluate(bool final);  // true when the evaluation set a new best
  std::string save(bool best);
  double wall_time() const;

  // set-up, in order
  dist::Communicator& comm_;
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
  std::unique_ptr<GradientAverager> averager_;
  std::string best_metric_, monitored_metric_;

  // the loop
  TrainState state_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  double wall_before_ = 0;  // seconds of training in earlier processes of this run
  std::chrono::steady_clock::time_point window_start_ = start_;
  int64_t window_items_ = 0;
  nn::MetricSums window_sums_;
  double comm_seconds_ = 0;    // this process: inside collectives during updates
  double update_seconds_ = 0;  // this process: in updates (what the time budget counts, before agreeing)
};

// `lintra train`: resolves the config, then prints it (print_config) or trains on the ranks the
// launcher started (dist::world(): one process without mpirun or srun).
int run_train(const TrainCommand& command);

}  // namespace lintra::train
