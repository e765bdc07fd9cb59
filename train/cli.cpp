#include "train/cli.h"

#include <CLI/CLI.hpp>

#include "core/threading.h"
#include "train/bench_kernels.h"
#include "train/selfcheck.h"

namespace lintra {

int run_cli(int argc, char** argv) {
  CLI::App app{"lintra — fast autoregressive transformers with linear attention, in C++.\n"
               "Reproduces 'Transformers are RNNs' (Katharopoulos et al., ICML 2020).\n\n"
               "Examples:\n"
               "  lintra selfcheck                      # gradcheck + a tiny training run\n"
               "  lintra bench kernels --json k.json    # kernels against BLAS and memcpy"};
  app.set_version_flag("--version", std::string("lintra ") + LINTRA_VERSION);
  app.require_subcommand(1);
  int threads = 0;
  app.add_option("--threads", threads, "threads for OpenMP and OpenBLAS (default: all cores)");

  auto* selfcheck = app.add_subcommand("selfcheck", "gradient check and a tiny training run whose loss must fall\n"
                                                    "Example: lintra selfcheck");

  auto* bench = app.add_subcommand("bench", "speed measurements (never part of the tests)");
  bench->require_subcommand(1);
  bench::KernelBenchOptions kopt;
  auto* kernels = bench->add_subcommand(
      "kernels", "matmul against direct cblas_sgemm, add/softmax against memcpy, side by side\n"
                 "Example: lintra bench kernels --json kernels.json");
  kernels->add_option("--json", kopt.json_path, "write one JSON object per case to this file");
  kernels->add_option("--min-seconds", kopt.min_seconds, "timing budget per case")->check(CLI::PositiveNumber);
  kernels->add_option("--filter", kopt.filter, "only cases whose name contains this");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  set_num_threads(threads);
  if (selfcheck->parsed()) {
    run_selfcheck();
  } else if (kernels->parsed()) {
    bench::run_kernel_benchmarks(kopt);
  }
  return 0;
}

}  // namespace lintra
