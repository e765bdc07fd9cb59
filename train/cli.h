// cli.h — the `lintra` command line (CLI11). main() only calls run_cli and maps errors to exit codes.
#pragma once

namespace lintra {

// Exit codes: 0 ok, 1 a failed check (selfcheck/bench), 2 bad usage or input (lintra::Error).
int run_cli(int argc, char** argv);

}  // namespace lintra
