// command.h — one subcommand of `lintra` (app/commands.h adds each to the CLI11 tree).
#pragma once

#include <functional>
#include <vector>

namespace CLI {
class App;
}

namespace lintra::app {

// Where a subcommand sits in the tree, and what runs when it was the one parsed (the options it
// reads are bound inside `run`). `run` returns the exit status.
struct Command {
  CLI::App* cli = nullptr;
  std::function<int()> run;
};
using Commands = std::vector<Command>;

}  // namespace lintra::app
