// cli.h — the `lintra` command line: builds the CLI11 tree from one add_*_command per subcommand
// (app/commands.h), parses argv and runs the parsed one. Returns the exit status; errors are thrown
// as lintra::Error (main turns them into exit status 2).
#pragma once

namespace lintra::app {

int run_cli(int argc, char** argv);

}  // namespace lintra::app
