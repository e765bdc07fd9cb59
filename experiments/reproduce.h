// reproduce.h — `lintra reproduce TABLE --scale smoke|cpu|paper`: runs the configs of one of the
// paper's tables (configs/<table>/<scale>/<row>.yaml), resuming rows already done in the output
// directory, then writes experiments/results/<table>-<scale>.md with the paper's numbers beside
// lintra's, the exact commands, the machine and the wall time, and prints the table.
#pragma once

#include <cstdint>
#include <string>

namespace lintra::experiments {

struct ReproduceCommand {
  std::string table;                          // copy | all | …
  std::string scale = "cpu";                  // smoke | cpu | paper
  std::string configs_dir = "configs";
  std::string runs_dir = "runs/reproduce";    // one run directory per row: <runs_dir>/<table>-<scale>/<row>
  std::string results_dir = "experiments/results";
  std::string rows;                           // comma-separated subset of rows (empty: all)
  int64_t seeds = 0;                          // seeds per row, 1 … N (0: the table's; smoke scale 1)
};

int run_reproduce(const ReproduceCommand& cmd);

}  // namespace lintra::experiments
