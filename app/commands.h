// commands.h — every subcommand of `lintra`, each added to the CLI11 tree by one function. Each file
// of app/ holds one family: train_command.cpp (train, config), checkpoint_commands.cpp (eval, sample,
// ckpt), reproduce_command.cpp, bench_commands.cpp, data_commands.cpp, selfcheck.cpp.
#pragma once

#include "app/command.h"

namespace lintra::app {

Command add_train_command(CLI::App& app);
Command add_config_command(CLI::App& app);
Command add_eval_command(CLI::App& app);
Command add_sample_command(CLI::App& app);
Command add_ckpt_command(CLI::App& app);
Command add_reproduce_command(CLI::App& app);
Command add_selfcheck_command(CLI::App& app);
// `bench kernels|attention|generate`: one Command per leaf.
Commands add_bench_commands(CLI::App& app);
// `data fetch mnist`, `data prepare photos32|speech|espeak-speech`: one Command for the whole group.
Command add_data_commands(CLI::App& app);

}  // namespace lintra::app
