#include "experiments/reproduce.h"

#include <fmt/ranges.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.h"
#include "data/cache.h"
#include "data/images/mnist_fetch.h"
#include "data/images/photos32.h"
#include "data/speech/espeak_corpus.h"
#include "experiments/results_file.h"
#include "experiments/speed_tables.h"
#include "experiments/tables.h"
#include "train/experiment_config.h"
#include "train/factories.h"
#include "train/sample.h"
#include "train/trainer.h"

namespace lintra::experiments {

namespace fs = std::filesystem;

namespace {

// Image tables: the data folder a row trains on, and what the table should say about it.
struct ImageData {
  std::vector<std::string> overrides;
  std::string note;
};

ImageData image_data_for(const std::string& table) {
  if (table != "cifar10") return {};
  const auto root = data::data_root();
  if (fs::exists(root / "cifar10" / "data_batch_1.bin")) {
    return {{"data.name=cifar10"}, "Data: **the real CIFAR-10** batches found in the data cache."};
  }
  data::prepare_photos32(root, data::Photos32Options{}, [](const std::string& m) { fmt::print(stderr, "{}\n", m); });
  return {{}, "Data: **photos32**, the CIFAR-10 stand-in (`lintra data prepare photos32`; no real CIFAR-10 batches "
              "in the data cache)."};
}

// A grid of generated images from a row's newest checkpoint (recurrent form where one exists):
// <results>/<table>-<scale>-samples-<row>.png, made once.
std::string sample_grid(const std::string& table, const std::string& scale, const std::string& row,
                        const std::string& run_dir, const std::string& results_dir) {
  const std::string png = fmt::format("{}-{}-samples-{}.png", table, scale, row);
  const fs::path out = fs::path(results_dir) / png;
  if (fs::exists(out)) return png;
  std::ifstream latest(fs::path(run_dir) / "checkpoints" / "latest");
  std::string name;
  std::getline(latest, name);
  LINTRA_CHECK(!name.empty(), "reproduce: {} has no checkpoint to sample from", run_dir);
  train::SampleCommand sc;
  sc.checkpoint = (fs::path(run_dir) / "checkpoints" / name).string();
  // Rows without a recurrent form (reformer) recompute the prefix for every pixel, O(L³) per image:
  // fewer images for them (one for CIFAR-10's 3,072 steps), and at smoke scale a single one.
  const bool recurrent = row == "softmax" || row == "linear";
  sc.n = scale == "smoke" ? 1 : recurrent ? 16 : table == "cifar10" ? 1 : 4;
  sc.out = out.string();
  sc.seed = 1;
  train::run_sample(sc);
  return png;
}

std::vector<std::string> selected_rows(const TableSpec& spec, const std::string& option) {
  if (option.empty()) return spec.rows;
  std::vector<std::string> rows;
  std::stringstream ss(option);
  std::string r;
  while (std::getline(ss, r, ',')) {
    LINTRA_CHECK(std::find(spec.rows.begin(), spec.rows.end(), r) != spec.rows.end(),
                 "reproduce: table '{}' has no row '{}' (rows: {})", spec.name, r, fmt::join(spec.rows, ", "));
    rows.push_back(r);
  }
  return rows;
}

std::string row_config(const ReproduceCommand& cmd, const TableSpec& spec, const std::string& row) {
  return fmt::format("{}/{}/{}/{}.yaml", cmd.configs_dir, spec.name, cmd.scale, row);
}

std::string row_run_dir(const ReproduceCommand& cmd, const TableSpec& spec, const std::string& row) {
  return fmt::format("{}/{}-{}/{}", cmd.runs_dir, spec.name, cmd.scale, row);
}

// What the table's rows train on, fetched or built when missing; returns the image data choice.
ImageData prepare_data(const ReproduceCommand& cmd, const TableSpec& spec, const std::string& first_row) {
  auto log = [](const std::string& m) { fmt::print(stderr, "{}\n", m); };
  if (spec.name == "mnist") data::fetch_mnist(data::data_root(), log);
  ImageData image_data = image_data_for(spec.name);
  if (spec.kind == "speech") {
    // The corpus size is part of each scale's config (smoke: tiny, cpu: small, paper: full).
    Config first = train::load_experiment_config({row_config(cmd, spec, first_row)}, {});
    data::EspeakCorpusOptions eo;
    eo.size = first.get_string("data.corpus_size");
    data::prepare_espeak_speech(data::data_root(), eo, log);
  }
  return image_data;
}

// Trains (or resumes) one row; returns run_train's exit status (130: interrupted).
int train_row(const ReproduceCommand& cmd, const TableSpec& spec, const std::string& row, const ImageData& image_data,
               TableRun& run) {
  const std::string config = row_config(cmd, spec, row);
  const std::string run_dir = row_run_dir(cmd, spec, row);
  const std::string command = fmt::format("lintra train {}{}{} --run-dir {}", config,
                                          image_data.overrides.empty() ? "" : " ",
                                          fmt::join(image_data.overrides, " "), run_dir);
  fmt::print(stderr, "\n== {} {} row '{}': {}\n", spec.name, cmd.scale, row, command);
  train::TrainCommand tc;
  tc.configs = {config};
  tc.overrides = image_data.overrides;
  tc.run_dir = run_dir;
  if (int rc = train::run_train(tc); rc != 0) return rc;
  run.results[row] = read_row(row, run_dir, command);
  return 0;
}

// Speech: epochs trained (updates × batch / training utterances) and wall time per epoch.
void count_epochs(const ReproduceCommand& cmd, TableRun& run) {
  for (const std::string& row : run.rows) {
    Config c = train::load_experiment_config({row_config(cmd, *run.spec, row)}, {});
    const int64_t n_train = train::build_data(c).train->size();
    const double epochs =
        double(run.results[row].steps) * double(c.get_int("data.batch_size")) / double(std::max<int64_t>(n_train, 1));
    run.epochs[row] = epochs;
    run.epoch_seconds[row] = epochs > 0 ? run.results[row].wall_time / epochs : 0;
  }
}

int reproduce_all(const ReproduceCommand& cmd) {
  std::vector<std::string> names;
  for (const auto& t : tables()) names.push_back(t.name);
  for (const char* t : {"throughput", "latency", "scaling"}) names.push_back(t);
  for (const auto& name : names) {
    ReproduceCommand c = cmd;
    c.table = name;
    if (int rc = run_reproduce(c); rc != 0) return rc;
  }
  return 0;
}

}  // namespace

int run_reproduce(const ReproduceCommand& cmd) {
  if (cmd.table == "all") return reproduce_all(cmd);
  if (is_speed_table(cmd.table)) return run_speed_table(cmd);
  const TableSpec& spec = table_spec(cmd.table);
  LINTRA_CHECK(cmd.scale == "smoke" || cmd.scale == "cpu" || cmd.scale == "paper",
               "reproduce: unknown scale '{}' (valid: smoke, cpu, paper)", cmd.scale);
  TableRun run{.spec = &spec, .scale = cmd.scale, .rows_option = cmd.rows, .rows = selected_rows(spec, cmd.rows)};
  const auto t0 = std::chrono::steady_clock::now();
  const ImageData image_data = prepare_data(cmd, spec, run.rows[0]);
  run.data_note = image_data.note;
  for (const std::string& row : run.rows)  // interrupted: the rows done so far resume next time
    if (int rc = train_row(cmd, spec, row, image_data, run); rc != 0) return rc;
  if (spec.kind == "speech") count_epochs(cmd, run);
  if (spec.kind == "image") {  // a grid of generated samples per row
    fs::create_directories(cmd.results_dir);
    for (const std::string& row : run.rows)
      run.grids[row] = sample_grid(spec.name, cmd.scale, row, row_run_dir(cmd, spec, row), cmd.results_dir);
  }
  run.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  fs::create_directories(cmd.results_dir);
  write_results_file(cmd.results_dir, fmt::format("{}-{}.md", spec.name, cmd.scale), results_markdown(run, cmd.results_dir));
  return 0;
}

}  // namespace lintra::experiments
