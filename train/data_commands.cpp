// data_commands.cpp — the `lintra data` subcommands (see data_commands.h).
#include "train/data_commands.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "core/error.h"
#include "data/cache.h"
#include "data/mnist_fetch.h"
#include "data/photos32.h"

namespace lintra::train {

namespace {

void print_line(const std::string& m) { fmt::print("{}\n", m); }

// `lintra data fetch mnist`
void add_fetch(CLI::App* data_cmd, DataCommands& cmds) {
  auto name = std::make_shared<std::string>();
  auto* fetch = data_cmd->add_subcommand("fetch", "download and verify a data set (idempotent)\n"
                                                   "Example: lintra data fetch mnist");
  fetch->add_option("name", *name, "data set")->required()->check(CLI::IsMember({"mnist"}));
  fetch->callback([&cmds, name] {
    cmds.action = [&cmds] {
      auto dir = data::fetch_mnist(data::data_root(cmds.data_dir), print_line);
      fmt::print("mnist: verified in {}\n", dir.string());
    };
  });
}

// `lintra data prepare photos32 [--seed S] [--train-count N] [--test-count M]`
void add_prepare_photos32(CLI::App* prepare, DataCommands& cmds) {
  auto opt = std::make_shared<data::Photos32Options>();
  auto* cmd = prepare->add_subcommand(
      "photos32", "32×32 patches of 33 photos from Debian packages, in CIFAR-10's binary format (the CIFAR-10\n"
                  "stand-in; DATA.md). Downloads 163 MB of .debs once (kept in <cache>/photos32/debs).\n"
                  "Example: lintra data prepare photos32 --seed 1");
  cmd->add_option("--seed", opt->seed, "patch sampler seed (same seed, same bytes)")->capture_default_str();
  cmd->add_option("--train-count", opt->train_count, "training patches, over data_batch_1..5.bin")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--test-count", opt->test_count, "test patches, in test_batch.bin")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->callback([&cmds, opt] {
    cmds.action = [&cmds, opt] { data::prepare_photos32(data::data_root(cmds.data_dir), *opt, print_line); };
  });
}

}  // namespace

CLI::App* add_data_commands(CLI::App& app, DataCommands& cmds) {
  auto* data_cmd = app.add_subcommand("data", "fetch or prepare data sets into the data cache\n"
                                              "(--data-dir, else $LINTRA_DATA, else <repo>/data/cache)");
  data_cmd->require_subcommand(1);
  data_cmd->add_option("--data-dir", cmds.data_dir, "data cache folder");
  add_fetch(data_cmd, cmds);

  auto* prepare = data_cmd->add_subcommand("prepare", "build a prepared data set from its sources (idempotent)");
  prepare->require_subcommand(1);
  // Each prepared data set registers its subcommand of `prepare` here (one add_prepare_* each).
  add_prepare_photos32(prepare, cmds);
  (void)prepare;
  return data_cmd;
}

int run_data_command(const DataCommands& cmds) {
  LINTRA_CHECK(static_cast<bool>(cmds.action), "lintra data: no subcommand was parsed");
  cmds.action();
  return 0;
}

}  // namespace lintra::train
