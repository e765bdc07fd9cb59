#include "train/cli.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "core/threading.h"
#include "train/bench_attention.h"
#include "train/bench_generate.h"
#include "train/bench_kernels.h"
#include "train/commands.h"
#include "train/data_commands.h"
#include "train/experiment_config.h"
#include "train/reproduce.h"
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
      "Example: lintra train configs/copy/cpu/softmax.yaml train.steps=200 --run-dir runs/try");
  train->add_option("args", train_args, "CONFIG.yaml ... [key=value | +key=value ...]")->required();
  train->add_option("--run-dir", train_cmd.run_dir, "run directory (default: runs/<experiment>/<timestamp>)");
  train->add_flag("--print-config", train_cmd.print_config, "print the resolved config and exit");

  train::EvalCommand eval_cmd;
  auto* eval = app.add_subcommand("eval", "metrics of a checkpoint on its evaluation split (reads the config stored in it)\n"
                                          "Example: lintra eval runs/copy/x/checkpoints/best.h5");
  eval->add_option("checkpoint", eval_cmd.checkpoint, "a .h5 checkpoint, or a run directory / checkpoints folder / latest file (→ its latest)")->required()->check(CLI::ExistingPath);
  eval->add_option("--batches", eval_cmd.max_batches, "evaluate only this many batches (0: all)");

  train::SampleCommand sample_cmd;
  auto* sample = app.add_subcommand("sample", "generate images from a checkpoint into a PNG grid (recurrent form where\n"
                                              "the attention has one, else recomputing the prefix per pixel)\n"
                                              "Example: lintra sample runs/mnist/x/checkpoints/best.h5 -n 16 --out grid.png");
  sample->add_option("checkpoint", sample_cmd.checkpoint, "a .h5 checkpoint, or a run directory / checkpoints folder / latest file (→ its latest)")->required()->check(CLI::ExistingPath);
  sample->add_option("-n", sample_cmd.n, "images")->check(CLI::Range(1, 10000));
  sample->add_option("--out", sample_cmd.out, "PNG file (default: <run>/samples/step_<N>.png)");
  sample->add_option("--seed", sample_cmd.seed, "sampling seed");
  sample->add_option("--mode", sample_cmd.mode, "auto | recurrent | recompute")->check(CLI::IsMember({"auto", "recurrent", "recompute"}));

  std::string ckpt_action;
  std::vector<std::string> ckpt_paths;
  auto* ckpt = app.add_subcommand("ckpt", "inspect checkpoints: info | ls | verify | diff\n"
                                          "Examples: lintra ckpt info runs/x/checkpoints/step_100.h5\n"
                                          "          lintra ckpt ls runs/x\n"
                                          "          lintra ckpt verify runs/x/checkpoints/*.h5   (exit 1 if any is broken)\n"
                                          "          lintra ckpt diff a.h5 b.h5                   (exit 1 if they differ)");
  ckpt->add_option("action", ckpt_action, "info, ls, verify or diff")->required()->check(CLI::IsMember({"info", "ls", "verify", "diff"}));
  ckpt->add_option("paths", ckpt_paths, "checkpoint files (ls: run directories too)")->required();

  auto* config_cmd = app.add_subcommand("config", "print configs/base.yaml: every key with its default and a comment\n"
                                                  "Example: lintra config base > configs/base.yaml");
  std::string config_what;
  config_cmd->add_option("what", config_what, "base")->required()->check(CLI::IsMember({"base"}));

  train::ReproduceCommand rep;
  auto* reproduce = app.add_subcommand(
      "reproduce", "run the configs of one of the paper's tables and write paper-vs-lintra results\n"
                   "(rows already complete in the output directory are read, not retrained)\n"
                   "Example: lintra reproduce copy --scale cpu");
  reproduce->add_option("table", rep.table,
                        "copy | mnist | cifar10 | speech | throughput | latency | scaling | all")
      ->required();
  reproduce->add_option("--scale", rep.scale, "smoke | cpu | paper")->check(CLI::IsMember({"smoke", "cpu", "paper"}));
  reproduce->add_option("--rows", rep.rows, "comma-separated subset of the table's rows");
  reproduce->add_option("--runs-dir", rep.runs_dir, "where the rows' run directories go");
  reproduce->add_option("--results-dir", rep.results_dir, "where <table>-<scale>.md goes");
  reproduce->add_option("--configs-dir", rep.configs_dir, "the configs/ folder");

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
  bench::AttentionBenchOptions aopt;
  auto* attention_bench = bench::add_bench_attention_command(bench, aopt);
  bench::GenerateBenchOptions gopt;
  auto* generate_bench = bench::add_bench_generate_command(bench, gopt);

  train::DataCommands data_cmds;
  auto* data_cmd = train::add_data_commands(app, data_cmds);

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
  if (eval->parsed()) {
    eval_cmd.checkpoint = resolve_checkpoint_path(eval_cmd.checkpoint);
    return train::run_eval(eval_cmd);
  }
  if (reproduce->parsed()) return train::run_reproduce(rep);
  if (config_cmd->parsed()) {
    fmt::print("{}", train::documented_base_config());
    return 0;
  }
  if (ckpt->parsed()) return train::run_ckpt(ckpt_action, ckpt_paths);
  if (sample->parsed()) {
    sample_cmd.checkpoint = resolve_checkpoint_path(sample_cmd.checkpoint);
    return train::run_sample(sample_cmd);
  }
  if (selfcheck->parsed()) {
    run_selfcheck();
  } else if (kernels->parsed()) {
    bench::run_kernel_benchmarks(kopt);
  } else if (attention_bench->parsed()) {
    bench::run_attention_benchmark(aopt);
  } else if (generate_bench->parsed()) {
    bench::run_generate_benchmark(gopt);
  } else if (data_cmd->parsed()) {
    return train::run_data_command(data_cmds);
  }
  return 0;
}

}  // namespace lintra
