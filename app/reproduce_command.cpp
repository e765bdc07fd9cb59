// reproduce_command.cpp — `lintra reproduce TABLE --scale smoke|cpu|paper` (experiments/ runs it).
#include <CLI/CLI.hpp>

#include <memory>

#include "app/commands.h"
#include "experiments/reproduce.h"

namespace lintra::app {

Command add_reproduce_command(CLI::App& app) {
  auto rep = std::make_shared<experiments::ReproduceCommand>();
  auto* cli = app.add_subcommand(
      "reproduce", "run the configs of one of the paper's tables and write paper-vs-lintra results\n"
                   "(rows already complete in the output directory are read, not retrained)\n"
                   "Example: lintra reproduce copy --scale cpu");
  cli->add_option("table", rep->table, "copy | mnist | cifar10 | speech | throughput | latency | scaling | all")
      ->required();
  cli->add_option("--scale", rep->scale, "smoke | cpu | paper")->check(CLI::IsMember({"smoke", "cpu", "paper"}));
  cli->add_option("--rows", rep->rows, "comma-separated subset of the table's rows");
  cli->add_option("--seeds", rep->seeds, "seeds per row, 1 … N (default: the table's, 2 or 3; smoke scale 1)")
      ->check(CLI::Range(1, 100));
  cli->add_option("--runs-dir", rep->runs_dir, "where the rows' run directories go");
  cli->add_option("--results-dir", rep->results_dir, "where <table>-<scale>.md goes");
  cli->add_option("--configs-dir", rep->configs_dir, "the configs/ folder");
  return {cli, [rep] { return experiments::run_reproduce(*rep); }};
}

}  // namespace lintra::app
