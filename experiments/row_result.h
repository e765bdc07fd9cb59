// row_result.h — one row of a training table as its run left it: the curves and the last training
// and evaluation lines of its metrics.jsonl, the command that trained it, and its time.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace lintra::experiments {

struct RowResult {
  std::string row;
  std::vector<double> train_steps, train_loss, eval_steps, eval_loss;
  std::vector<double> eval_time, eval_per;  // speech: validation PER against training time (Figure 5c)
  std::string command;
  bool present = false;
  std::map<std::string, double> last_train, last_eval;
  double wall_time = 0;   // seconds of the run, evaluation and checkpoints included
  double train_time = 0;  // seconds of training alone (metrics field train_seconds; wall_time when absent)
  int64_t steps = 0;
};


// Reads <run_dir>/metrics.jsonl (lines that do not parse are skipped); `present` is false when the
// run logged no training line. Times: each line's train_seconds (training seconds so far, evaluation
// and checkpoints excluded) where the trainer wrote one, else its wall_time.
RowResult read_row(const std::string& row, const std::string& run_dir, const std::string& command);

}  // namespace lintra::experiments
