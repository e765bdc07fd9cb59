// checkpoint_commands.cpp — the subcommands that read checkpoints: `eval`, `sample` and
// `ckpt info|ls|verify|diff`. They need no YAML: every checkpoint stores its resolved config.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "app/commands.h"
#include "train/checkpoint/checkpoint.h"
#include "train/evaluate.h"
#include "train/sample.h"

namespace lintra::app {

namespace fs = std::filesystem;

namespace {

constexpr const char* kCheckpointHelp =
    "a .h5 checkpoint, or a run directory / checkpoints folder / latest file (→ its latest)";

void note(const std::string& m) { fmt::print(stderr, "{}\n", m); }

// The .h5 files a `ckpt ls` argument names: a run directory (its checkpoints/), a checkpoints
// folder, or one file. A missing path is an error.
std::vector<std::string> checkpoint_files(const std::string& p) {
  std::error_code ec;
  LINTRA_CHECK(fs::exists(p, ec), "ckpt ls: {}: no such file or directory", p);
  if (!fs::is_directory(p, ec)) return {p};
  fs::path dir = fs::is_directory(fs::path(p) / "checkpoints", ec) ? fs::path(p) / "checkpoints" : fs::path(p);
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".h5") files.push_back(e.path().string());
  LINTRA_CHECK(!ec, "ckpt ls: {}: cannot list: {}", dir.string(), ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

// What `ckpt info` and `ckpt verify` name: a file, or (like eval) a run directory, checkpoints
// folder or latest file. A missing path is an error.
std::string checkpoint_file(const std::string& p, const char* action) {
  std::error_code ec;
  LINTRA_CHECK(fs::exists(p, ec), "ckpt {}: {}: no such file or directory", action, p);
  return fs::is_regular_file(p, ec) ? p : resolve_checkpoint_path(p, note);
}

// Exit status 1 when any file fails verification.
int ckpt_info(const std::vector<std::string>& paths) {
  int bad = 0;
  for (const auto& p : paths) {
    const std::string file = checkpoint_file(p, "info");
    fmt::print("{}\n", describe_checkpoint(file));
    bad += verify_checkpoint(file).ok ? 0 : 1;
  }
  if (bad > 0) fmt::print(stderr, "ckpt info: {} of {} checkpoint(s) failed verification\n", bad, paths.size());
  return bad == 0 ? 0 : 1;
}

// Exit status 1 when a path holds no checkpoint or any listed file is broken.
int ckpt_ls(const std::vector<std::string>& paths) {
  int bad = 0, empty = 0;
  for (const auto& p : paths) {
    const std::vector<std::string> files = checkpoint_files(p);
    if (files.empty()) {
      ++empty;
      fmt::print(stderr, "ckpt ls: {}: no checkpoints (no .h5 file{})\n", p,
                 fs::is_directory(fs::path(p) / "checkpoints") ? " in its checkpoints/" : "");
    }
    for (const auto& f : files) {
      VerifyReport r = verify_checkpoint(f);
      std::error_code ec;
      const auto size = fs::file_size(f, ec);
      fmt::print("{:<50} step {:>8}  {:>10} bytes  {}\n", f, r.global_step, ec ? 0 : size, r.ok ? "ok" : "BROKEN");
      bad += r.ok ? 0 : 1;
    }
  }
  return bad == 0 && empty == 0 ? 0 : 1;
}

// Exit status 1 when any file fails.
int ckpt_verify(const std::vector<std::string>& paths) {
  int bad = 0;
  for (const auto& p : paths) {
    const std::string file = checkpoint_file(p, "verify");
    VerifyReport r = verify_checkpoint(file);
    if (r.ok) {
      fmt::print("{}: ok ({} datasets, {} bytes checked)\n", file, r.datasets_checked, r.bytes_checked);
    } else {
      ++bad;
      fmt::print("{}: BROKEN\n  {}\n", file, fmt::join(r.problems, "\n  "));
    }
  }
  return bad == 0 ? 0 : 1;
}

// Exit status 1 when the two differ.
int ckpt_diff(const std::vector<std::string>& paths) {
  LINTRA_CHECK(paths.size() == 2, "ckpt diff: give exactly two checkpoints, got {}", paths.size());
  auto d = diff_checkpoints(paths[0], paths[1]);
  fmt::print("{}", format_diff(d));
  for (const auto& t : d)
    if (t.kind != TensorDiff::Kind::same) return 1;
  return 0;
}

}  // namespace

Command add_eval_command(CLI::App& app) {
  auto cmd = std::make_shared<train::EvalCommand>();
  auto* cli = app.add_subcommand("eval", "metrics of a checkpoint on its evaluation split (reads the config stored in it)\n"
                                         "Example: lintra eval runs/copy/x/checkpoints/best.h5");
  cli->add_option("checkpoint", cmd->checkpoint, kCheckpointHelp)->required()->check(CLI::ExistingPath);
  cli->add_option("--batches", cmd->max_batches, "evaluate only this many batches (0: all)");
  cli->add_option("--device", cmd->device, "cpu, cuda or cuda:N (default: the device it trained on)");
  cli->add_option("--engine", cmd->engine,
                  "image models: score token by token on the compiled recurrent engine with f32 or bf16 weights\n"
                  "(the recurrent form's bits/dim, and what bf16 weights cost)")
      ->check(CLI::IsMember({"f32", "bf16"}));
  return {cli, [cmd] {
            cmd->checkpoint = resolve_checkpoint_path(cmd->checkpoint, note);
            return train::run_eval(*cmd);
          }};
}

Command add_sample_command(CLI::App& app) {
  auto cmd = std::make_shared<train::SampleCommand>();
  auto* cli = app.add_subcommand("sample", "generate images from a checkpoint into a PNG grid (recurrent form where\n"
                                           "the attention has one, else recomputing the prefix per pixel)\n"
                                           "Example: lintra sample runs/mnist/x/checkpoints/best.h5 -n 16 --out grid.png");
  cli->add_option("checkpoint", cmd->checkpoint, kCheckpointHelp)->required()->check(CLI::ExistingPath);
  cli->add_option("-n", cmd->n, "images")->check(CLI::Range(1, 10000));
  cli->add_option("--out", cmd->out, "PNG file (default: <run>/samples/step_<N>.png)");
  cli->add_option("--seed", cmd->seed, "sampling seed");
  cli->add_option("--mode", cmd->mode, "auto | recurrent | recompute")->check(CLI::IsMember({"auto", "recurrent", "recompute"}));
  cli->add_option("--device", cmd->device, "cpu, cuda or cuda:N (default: the device it trained on)");
  cli->add_option("--engine-weights", cmd->engine_weights,
                  "image models, recurrent form: run on the compiled engine with f32 or bf16 weights (bf16 halves\n"
                  "the bytes streamed per token, on any CPU; default: the engine where it can run, with f32)")
      ->check(CLI::IsMember({"f32", "bf16"}));
  return {cli, [cmd] {
            cmd->checkpoint = resolve_checkpoint_path(cmd->checkpoint, note);
            return train::run_sample(*cmd);
          }};
}

Command add_ckpt_command(CLI::App& app) {
  struct Args {
    std::string action;
    std::vector<std::string> paths;
  };
  auto args = std::make_shared<Args>();
  auto* cli = app.add_subcommand("ckpt", "inspect checkpoints: info | ls | verify | diff\n"
                                         "Examples: lintra ckpt info runs/x/checkpoints/step_100.h5 (exit 1 if it is broken)\n"
                                         "          lintra ckpt ls runs/x       (exit 1 if it holds none or any is broken)\n"
                                         "          lintra ckpt verify runs/x/checkpoints/*.h5   (exit 1 if any is broken)\n"
                                         "          lintra ckpt diff a.h5 b.h5                   (exit 1 if they differ)\n"
                                         "A path that does not exist: exit 2.");
  cli->add_option("action", args->action, "info, ls, verify or diff")->required()->check(CLI::IsMember({"info", "ls", "verify", "diff"}));
  cli->add_option("paths", args->paths, "checkpoint files (ls: run directories too)")->required();
  return {cli, [args] {
            if (args->action == "info") return ckpt_info(args->paths);
            if (args->action == "ls") return ckpt_ls(args->paths);
            if (args->action == "verify") return ckpt_verify(args->paths);
            return ckpt_diff(args->paths);
          }};
}

}  // namespace lintra::app
