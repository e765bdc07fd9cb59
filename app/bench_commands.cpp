// bench_commands.cpp — `lintra bench kernels|attention|train|generate`: the options of each benchmark
// (bench/ runs them and prints their tables; they are speed measurements, never tests).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>

#include "app/commands.h"
#include "bench/attention.h"
#include "bench/generate.h"
#include "bench/kernels.h"
#include "bench/train.h"
#include "core/simd.h"

namespace lintra::app {

namespace {

// --simd-target NAME: run the benchmark's dispatched kernels on that Highway target (AVX2, SSE4, SCALAR…)
// instead of the best one, so every path is measured on the machine at hand.
std::shared_ptr<std::string> add_simd_target_option(CLI::App* cmd) {
  auto target = std::make_shared<std::string>();
  cmd->add_option("--simd-target", *target,
                  "force the dispatched CPU kernels onto this SIMD target (AVX3, AVX2, SSE4, SSSE3, SCALAR: what "
                  "this CPU runs); default the best");
  return target;
}

Command add_bench_kernels(CLI::App* bench) {
  auto opt = std::make_shared<bench::KernelBenchOptions>();
  auto* cmd = bench->add_subcommand(
      "kernels", "matmul against direct cblas_sgemm, add/softmax against memcpy, side by side (on a GPU:\n"
                 "matmul and the causal product against direct cuBLAS)\n"
                 "Example: lintra bench kernels --json kernels.json");
  cmd->add_option("--json", opt->json_path, "write one JSON object per case to this file");
  cmd->add_option("--min-seconds", opt->min_seconds, "timing budget per case")->check(CLI::PositiveNumber);
  cmd->add_option("--filter", opt->filter, "only cases whose name contains this");
  cmd->add_option("--device", opt->device,
                  "cpu (default), or cuda / cuda:N: the model's matrix products and the causal product on that GPU "
                  "against cuBLAS called directly");
  auto target = add_simd_target_option(cmd);
  return {cmd, [opt, target] {
            force_simd_target(*target);
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
  cmd->add_option("--device", opt->device, "where it runs: cpu, cuda or cuda:N (default cpu)");
  auto target = add_simd_target_option(cmd);
  return {cmd, [opt, target] {
            force_simd_target(*target);
            bench::run_attention_benchmark(*opt);
            return 0;
          }};
}

Command add_bench_train(CLI::App* bench) {
  auto o = std::make_shared<bench::TrainBenchOptions>();
  auto* cmd = bench->add_subcommand(
      "train", "one training step (forward, backward, optimizer update) of the paper's image models, per attention\n"
               "variant, at the MNIST (8 layers, 784 pixels) and CIFAR-10 (16 layers, 3,072) shapes of its configs:\n"
               "median step time, model GFLOP/s against cblas_sgemm at the model's GEMM shapes, peak RSS, CPU time\n"
               "Example: lintra bench train --shapes mnist --variants causal-linear,softmax --json train.json");
  cmd->add_option("--json", o->json_path, "write one JSON object per (shape, variant) to this file");
  cmd->add_option("--variants", o->variants, fmt::format("comma-separated subset of {}", fmt::join(bench::kTrainVariants, ",")))
      ->delimiter(',')
      ->check(CLI::IsMember(bench::kTrainVariants));
  cmd->add_option("--shapes", o->shapes, "comma-separated subset of mnist,cifar10")
      ->delimiter(',')
      ->check(CLI::IsMember(bench::kTrainShapes));
  cmd->add_option("--steps", o->steps, "timed steps after the warm-up (the median is reported)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--smoke", o->smoke, "tiny sizes (1 layer, 2 heads × 4, 24 pixels, batch 2): a quick check that it runs");
  cmd->add_option("--configs-dir", o->configs_dir, "the configs/ folder (the paper's configs are read from it)");
  cmd->add_option("--memory-cap-mb", o->memory_cap_mb,
                  "rows predicted above it are timed with fewer layers (then samples) and scaled, as noted");
  cmd->add_option("--device", o->device, "where the model trains: cpu, cuda or cuda:N (default cpu)");
  cmd->add_option("--matmul-precision", o->matmul_precision,
                  "fp32 (default) or bf16: bf16 operands, float32 sums (CPUs with AVX512_BF16 or AMX)")
      ->check(CLI::IsMember({"fp32", "bf16"}));
  auto target = add_simd_target_option(cmd);
  return {cmd, [o, target] {
            force_simd_target(*target);
            bench::run_train_benchmark(*o);
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
  cmd->add_option("--device", o->device,
                  "where the model runs: cpu, cuda or cuda:N (default cpu; off the CPU the engine rows use the modules)");
  auto target = add_simd_target_option(cmd);
  return {cmd, [o, target] {
            force_simd_target(*target);
            bench::run_generate_benchmark(*o);
            return 0;
          }};
}

}  // namespace

Commands add_bench_commands(CLI::App& app) {
  auto* bench = app.add_subcommand("bench", "speed measurements (never part of the tests)");
  bench->require_subcommand(1);
  return {add_bench_kernels(bench), add_bench_attention(bench), add_bench_train(bench), add_bench_generate(bench)};
}

}  // namespace lintra::app
