// trainer.h — `lintra train`: the one training loop for every experiment.
//
// Resolves the config (files merged left to right, then key=value overrides), opens the run
// directory (resuming from its newest complete checkpoint when it already holds this config),
// builds data, model, optimizer and schedule from the config, and trains: gradient accumulation,
// NaN policy, logging to metrics.jsonl, evaluation, checkpoints with retention and best.h5.
//
// Exit status (returned, main exits with it): 0 finished; 130 stopped by SIGINT or SIGTERM after
// finishing the current update and writing a checkpoint (a second SIGINT aborts at once, without
// one). Errors are thrown as lintra::Error.
#pragma once

#include <string>
#include <vector>

namespace lintra::train {

struct TrainCommand {
  std::vector<std::string> configs;    // YAML files, merged left to right
  std::vector<std::string> overrides;  // a.b=value / +a.b=value
  std::string run_dir;                 // empty: runs/<experiment>/<timestamp>
  bool print_config = false;           // print the resolved config and return
};

int run_train(const TrainCommand& command);

}  // namespace lintra::train
