// train_command.cpp — `lintra train` and `lintra config base`.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <memory>

#include "app/commands.h"
#include "train/experiment_config.h"
#include "train/trainer.h"

namespace lintra::app {

Command add_train_command(CLI::App& app) {
  struct Args {
    train::TrainCommand cmd;
    std::vector<std::string> positional;  // configs and key=value overrides, in any order
  };
  auto args = std::make_shared<Args>();
  auto* cli = app.add_subcommand(
      "train",
      "train from YAML configs (merged left to right) and key=value overrides\n"
      "Training again in an existing run directory resumes from its newest complete checkpoint.\n"
      "Exit status: 0 finished; 130 stopped by SIGINT/SIGTERM after writing a checkpoint\n"
      "(a second SIGINT aborts at once); 2 a bad config or input.\n"
      "Example: lintra train configs/copy/cpu/softmax.yaml train.steps=200 --run-dir runs/try");
  cli->add_option("args", args->positional, "CONFIG.yaml ... [key=value | +key=value ...]")->required();
  cli->add_option("--run-dir", args->cmd.run_dir, "run directory (default: runs/<experiment>/<timestamp>)");
  cli->add_flag("--print-config", args->cmd.print_config, "print the resolved config and exit");
  return {cli, [args] {
            for (const auto& a : args->positional) {
              if (a.find('=') != std::string::npos) args->cmd.overrides.push_back(a);
              else args->cmd.configs.push_back(a);
            }
            return train::run_train(args->cmd);
          }};
}

Command add_config_command(CLI::App& app) {
  auto* cli = app.add_subcommand("config", "print configs/base.yaml: every key with its default and a comment\n"
                                           "Example: lintra config base > configs/base.yaml");
  auto what = std::make_shared<std::string>();
  cli->add_option("what", *what, "base")->required()->check(CLI::IsMember({"base"}));
  return {cli, [what] {  // `what` is bound to the option: it must live as long as the tree
            fmt::print("{}", train::documented_base_config());
            return 0;
          }};
}

}  // namespace lintra::app
