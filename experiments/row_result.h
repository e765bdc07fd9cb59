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
  std::vector<double> eval_wall, eval_per;  // speech: validation PER against wall time (Figure 5c)
  std::string command;
  bool present = false;
  std::map<std::string, double> last_train, last_eval;
  double wall_time = 0;
  int64_t steps = 0;
  double items_per_s = 0;
};


// Reads <run_dir>/metrics.jsonl (lines that do not parse are skipped); `present` is false when the
// run logged no training line.
RowResult read_row(const std::string& row, const std::string& run_dir, const std::string& command);

// m[key] formatted with f, or "—" when absent.
std::string fmt_metric(const std::map<std::string, double>& m, const char* key, const char* f = "{:.4f}");

}  // namespace lintra::experiments
