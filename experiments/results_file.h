// results_file.h — the markdown results file of one training table (experiments/results/
// <table>-<scale>.md): the rows beside the paper's numbers (means over the seeds, with their range),
// the paper's claims checked on them (claims.h), the figures (training curves; speech: dev PER
// against training time), the sample grids, the commands that trained the rows and the machine.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "experiments/claims.h"
#include "experiments/row_result.h"
#include "experiments/tables.h"

namespace lintra::experiments {

// One row trained with one seed.
struct SeedRun {
  int64_t seed = 1;
  RowResult result;
  double epochs = 0;         // updates × batch × accumulation / training samples
  double epoch_seconds = 0;  // training seconds per epoch
  double items_per_s = 0;    // training items (sequences, images, utterances) per training second
  double other_share = -1;   // of the CPU other work took while it trained (machine_load.h); −1: unknown
};

// What one `lintra reproduce TABLE` run found.
struct TableRun {
  const TableSpec* spec = nullptr;
  std::string scale;
  std::string rows_option;                           // --rows as given (empty: every row)
  std::vector<std::string> rows;                     // in the table's order
  std::vector<int64_t> seeds;                        // every row is trained with each
  std::map<std::string, std::vector<SeedRun>> runs;  // row → one per seed, in seed order
  std::map<std::string, std::string> grids;          // image tables: row → sample grid PNG (in results_dir)
  std::string data_note;                             // which data the rows trained on, when it matters
  double wall_seconds = 0;                           // of this command
};

// A row metric of one run: eval_loss, bits_per_dim, per, accuracy (last evaluation), train_loss,
// train_bits_per_dim (last training window), epochs, epoch_seconds, updates, items_per_s,
// train_seconds, overhead_seconds (evaluation and checkpoints: wall time − training time); NaN when
// the run lacks it.
double row_metric(const SeedRun& run, const std::string& metric);
// The metric of every row, per seed (the input of judge()).
SeedValues seed_values(const TableRun& run, const std::string& metric);

// The file's text; draws its figures into results_dir (PNG and SVG files the text links to).
std::string results_markdown(const TableRun& run, const std::string& results_dir);

// Writes <results_dir>/<name> (making the folder) and prints the text and where it went; every
// table of `lintra reproduce` ends here.
void write_results_file(const std::string& results_dir, const std::string& name, const std::string& md);

}  // namespace lintra::experiments
