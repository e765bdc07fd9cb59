// data_commands.h — `lintra data fetch|prepare ...`: registers the subcommands and runs the parsed one.
//
// Each data set's subcommand lives in its own block of data_commands.cpp and calls one function of
// lintra_data (fetch_mnist, prepare_photos32, prepare_speech, prepare_espeak_speech); the commands
// only parse options and print progress lines.
#pragma once

#include <functional>
#include <string>

namespace CLI {
class App;
}

namespace lintra::train {

struct DataCommands {
  std::string data_dir;             // --data-dir (else $LINTRA_DATA, else <repo>/data/cache)
  std::function<void()> action;     // set by the parsed subcommand's callback
};

// Adds `data` with its subcommands to app; returns the `data` subcommand.
CLI::App* add_data_commands(CLI::App& app, DataCommands& cmds);

// Runs the parsed data subcommand (throws lintra::Error on bad input or corrupt data).
int run_data_command(const DataCommands& cmds);

}  // namespace lintra::train
