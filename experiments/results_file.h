// results_file.h — the markdown results file of one training table (experiments/results/
// <table>-<scale>.md): the rows beside the paper's numbers, the paper's findings checked on them,
// the figures (training curves; speech: dev PER against wall time), the sample grids, the commands
// that trained the rows and the machine.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "experiments/row_result.h"
#include "experiments/tables.h"

namespace lintra::experiments {

// What one `lintra reproduce TABLE` run found.
struct TableRun {
  const TableSpec* spec = nullptr;
  std::string scale;
  std::string rows_option;                           // --rows as given (empty: every row)
  std::vector<std::string> rows;                     // in the table's order
  std::map<std::string, RowResult> results;          // by row
  std::map<std::string, double> epochs, epoch_seconds;  // speech: epochs trained, seconds per epoch
  std::map<std::string, std::string> grids;          // image tables: row → sample grid PNG (in results_dir)
  std::string data_note;                             // which data the rows trained on, when it matters
  double wall_seconds = 0;                           // of this command
};

// The file's text; draws its figures into results_dir (PNG files the text links to).
std::string results_markdown(const TableRun& run, const std::string& results_dir);

// Writes <results_dir>/<name> (making the folder) and prints the text and where it went; every
// table of `lintra reproduce` ends here.
void write_results_file(const std::string& results_dir, const std::string& name, const std::string& md);

}  // namespace lintra::experiments
