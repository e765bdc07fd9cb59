// bench_commands.cpp — `lintra bench kernels|attention|generate`: the options of each benchmark
// (bench/ runs them and prints their tables; they are speed measurements, never tests).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>

#include "app/commands.h"
#include "bench/attention.h"
#include "bench/generate.h"
#include "bench/kernels.h"

namespace lintra::app {

namespace {

Command add_bench_kernels(CLI::App* bench) {
  auto opt = std::make_shared<bench::KernelBenchOptions>();
  auto* cmd = bench->add_subcommand(
      "kernels", "matmul against direct cblas_sgemm, add/softmax against memcpy, side by side\n"
                 "Example: lintra bench kernels --json kernels.json");
  cmd->add_option("--json", opt->json_path, "write one JSON object per case to this file");
  cmd->add_option("--min-seconds", opt->min_seconds, "timing budget per case")->check(CLI::PositiveNumber);
  cmd->add_option("--filter", opt->filter, "only cases whose name contains this");
  return {cmd, [opt] {
            bench::run_kernel_benchmarks(*opt);
            return 0;
          }};
}

Command add_bench_attention(CLI::App* bench) {
  auto opt = std::make_shared<bench::AttentionBenchOptions>();
  auto* cmd = bench->add_subcommand(
      "attention", "the paper's Figure 1: time and peak memory per sample of each attention's forward + backward\n"
                   "for N = 512 … 65,536 (batch max(1, 4096/N)); sizes predicted over the memory cap are skipped\n"
                   "Example: lintra bench attention --variants softmax,causal-linear --json attention.json");
  cmd->add_option("--json", opt->json_path, "write one JSON object per (variant, N) to this file");
  cmd->add_option("--variants", opt->variants, "comma-separated registry names, optionally name:key=value (default: all)")
      ->delimiter(',');
  cmd->add_option("--min-n", opt->min_n, "smallest N (then doubled)")->check(CLI::PositiveNumber);
  cmd->add_option("--max-n", opt->max_n, "largest N")->check(CLI::PositiveNumber);
  cmd->add_option("--tokens", opt->tokens, "batch rule: B = max(1, tokens / N)")->check(CLI::PositiveNumber);
  cmd->add_option("--memory-cap-mb", opt->memory_cap_mb, "skip sizes whose predicted memory exceeds this")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--heads", opt->heads, "H")->check(CLI::PositiveNumber);
  cmd->add_option("--dim", opt->dim, "E = M per head")->check(CLI::PositiveNumber);
  cmd->add_flag("--causal,!--no-causal", opt->causal, "causal mask where the variant accepts it (default) or not");
  cmd->add_option("--min-seconds", opt->min_seconds, "timing budget per (variant, N) after the warm-up")
      ->check(CLI::NonNegativeNumber);
  return {cmd, [opt] {
            bench::run_attention_benchmark(*opt);
            return 0;
          }};
}

Command add_bench_generate(CLI::App* bench) {
  auto o = std::make_shared<bench::GenerateBenchOptions>();
  auto* cmd = bench->add_subcommand(
      "generate", "images/s of the paper's MNIST model (untrained) with its generation protocols: recurrent\n"
                  "causal-linear and stateful-softmax (on the compiled engine; *-modules: on ImageModel::step),\n"
                  "recomputing softmax, reformer (lsh-1) and lsh-4\n"
                  "Example: lintra bench generate --batch-sizes 1,8 --json generate.json");
  cmd->add_option("--json", o->json_path, "write one JSON object per (variant, batch) to this file");
  cmd->add_option("--batch-sizes", o->batch_sizes, "comma-separated batch sizes")->delimiter(',')->check(CLI::PositiveNumber);
  cmd->add_option("--layers", o->layers, "layers")->check(CLI::PositiveNumber);
  cmd->add_option("--heads", o->heads, "heads")->check(CLI::PositiveNumber);
  cmd->add_option("--d-query", o->d_query, "E = M per head (d_model = heads · d_query)")->check(CLI::PositiveNumber);
  cmd->add_option("--image", o->image, "mnist (784 pixels) or cifar (3072 sub-pixels)")
      ->check(CLI::IsMember({"mnist", "cifar"}));
  cmd->add_option("--length", o->length, "pixels per image (default: by --image)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--variants", o->variants, fmt::format("comma-separated subset of {}", fmt::join(bench::kGenerateVariants, ",")))
      ->delimiter(',')
      ->check(CLI::IsMember(bench::kGenerateVariants));
  cmd->add_option("--pixels", o->pixels,
                  "recompute rows: time the pixel cost at this many positions and integrate (0: generate every pixel)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--min-seconds", o->min_seconds, "timing budget per recurrent row")->check(CLI::NonNegativeNumber);
  cmd->add_flag("!--no-profile", o->profile, "skip the per-token cost of the recurrent variants");
  cmd->add_option("--seed", o->seed, "weights and sampling seed");
  return {cmd, [o] {
            bench::run_generate_benchmark(*o);
            return 0;
          }};
}

}  // namespace

Commands add_bench_commands(CLI::App& app) {
  auto* bench = app.add_subcommand("bench", "speed measurements (never part of the tests)");
  bench->require_subcommand(1);
  return {add_bench_kernels(bench), add_bench_attention(bench), add_bench_generate(bench)};
}

}  // namespace lintra::app
