#include "train/cli.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "core/threading.h"
#include "data/cache.h"
#include "data/mnist_fetch.h"
#include "train/bench_kernels.h"
#include "train/selfcheck.h"
#include "train/trainer.h"

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

  train::TrainCommand train_cmd;
  std::vector<std::string> train_args;
  auto* train = app.add_subcommand(
      "train",
      "train from YAML configs (merged left to right) and key=value overrides\n"
      "Training again in an existing run directory resumes from its newest complete checkpoint.\n"
      "Exit status: 0 finished; 130 stopped by SIGINT/SIGTERM after writing a checkpoint\n"
      "(a second SIGINT aborts at once); 2 a bad config or input.\n"
      "Example: lintra train configs/copy/softmax-cpu.yaml train.steps=200 --run-dir runs/try");
  train->add_option("args", train_args, "CONFIG.yaml ... [key=value | +key=value ...]")->required();
  train->add_option("--run-dir", train_cmd.run_dir, "run directory (default: runs/<experiment>/<timestamp>)");
  train->add_flag("--print-config", train_cmd.print_config, "print the resolved config and exit");

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

  auto* data_cmd = app.add_subcommand("data", "fetch or prepare data sets into the data cache\n"
                                              "(--data-dir, else $LINTRA_DATA, else <repo>/data/cache)");
  data_cmd->require_subcommand(1);
  std::string data_dir;
  data_cmd->add_option("--data-dir", data_dir, "data cache folder");
  std::string fetch_name;
  auto* fetch = data_cmd->add_subcommand("fetch", "download and verify a data set (idempotent)\n"
                                                   "Example: lintra data fetch mnist");
  fetch->add_option("name", fetch_name, "data set")->required()->check(CLI::IsMember({"mnist"}));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  set_num_threads(threads);
  if (train->parsed()) {
    for (const auto& a : train_args) {
      if (a.find('=') != std::string::npos) train_cmd.overrides.push_back(a);
      else train_cmd.configs.push_back(a);
    }
    return train::run_train(train_cmd);
  }
  if (selfcheck->parsed()) {
    run_selfcheck();
  } else if (kernels->parsed()) {
    bench::run_kernel_benchmarks(kopt);
  } else if (fetch->parsed()) {
    auto root = data::data_root(data_dir);
    auto dir = data::fetch_mnist(root, [](const std::string& m) { fmt::print("{}\n", m); });
    fmt::print("mnist: verified in {}\n", dir.string());
  }
  return 0;
}

}  // namespace lintra
