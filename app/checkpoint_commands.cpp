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

// The .h5 files a `ckpt ls` argument names: a run directory (its checkpoints/), a checkpoints
// folder, or one file.
std::vector<std::string> checkpoint_files(const std::string& p) {
  if (!fs::is_directory(p)) return {p};
  fs::path dir = fs::exists(fs::path(p) / "checkpoints") ? fs::path(p) / "checkpoints" : fs::path(p);
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".h5") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

int ckpt_info(const std::vector<std::string>& paths) {
  for (const auto& p : paths) fmt::print("{}\n", describe_checkpoint(p));
  return 0;
}

int ckpt_ls(const std::vector<std::string>& paths) {
  for (const auto& p : paths) {
    for (const auto& f : checkpoint_files(p)) {
      VerifyReport r = verify_checkpoint(f);
      fmt::print("{:<50} step {:>8}  {:>10} bytes  {}\n", f, r.global_step, fs::file_size(f), r.ok ? "ok" : "BROKEN");
    }
  }
  return 0;
}

// Exit status 1 when any file fails.
int ckpt_verify(const std::vector<std::string>& paths) {
  int bad = 0;
  for (const auto& p : paths) {
    VerifyReport r = verify_checkpoint(p);
    if (r.ok) {
      fmt::print("{}: ok ({} datasets, {} bytes checked)\n", p, r.datasets_checked, r.bytes_checked);
    } else {
      ++bad;
      fmt::print("{}: BROKEN\n  {}\n", p, fmt::join(r.problems, "\n  "));
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
  return {cli, [cmd] {
            cmd->checkpoint = resolve_checkpoint_path(cmd->checkpoint);
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
  return {cli, [cmd] {
            cmd->checkpoint = resolve_checkpoint_path(cmd->checkpoint);
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
                                         "Examples: lintra ckpt info runs/x/checkpoints/step_100.h5\n"
                                         "          lintra ckpt ls runs/x\n"
                                         "          lintra ckpt verify runs/x/checkpoints/*.h5   (exit 1 if any is broken)\n"
                                         "          lintra ckpt diff a.h5 b.h5                   (exit 1 if they differ)");
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
