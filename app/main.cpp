// main.cpp — the only place that exits: runs the command line and turns errors into exit codes.
#include <cstdio>
#include <exception>

#include "core/error.h"
#include "train/cli.h"

int main(int argc, char** argv) {
  try {
    return lintra::run_cli(argc, argv);
  } catch (const lintra::Error& e) {
    std::fprintf(stderr, "lintra: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lintra: internal error: %s\n", e.what());
    return 3;
  }
}
