#include "experiments/reproduce.h"

#include <fmt/ranges.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"
#include "data/cache.h"
#include "data/images/mnist_fetch.h"
#include "data/images/photos32.h"
#include "data/speech/espeak_corpus.h"
#include "experiments/machine_load.h"
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

// One run directory per row and seed: <runs>/<table>-<scale>/<row>/seed-<s>.
std::string run_dir_of(const ReproduceCommand& cmd, const TableSpec& spec, const std::string& row, int64_t seed) {
  return fmt::format("{}/{}-{}/{}/seed-{}", cmd.runs_dir, spec.name, cmd.scale, row, seed);
}

// The seeds every row is trained with: 1 … N, N from --seeds, else the table's (one at smoke scale).
std::vector<int64_t> seeds_for(const ReproduceCommand& cmd, const TableSpec& spec) {
  const int64_t n = cmd.seeds > 0 ? cmd.seeds : cmd.scale == "smoke" ? 1 : spec.seeds;
  std::vector<int64_t> seeds;
  for (int64_t s = 1; s <= n; ++s) seeds.push_back(s);
  return seeds;
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

// Epochs trained (updates × batch × accumulation / training samples), seconds per epoch and
// training items per second, from the run's config and its training time.
void add_rates(const Config& c, SeedRun& s) {
  const int64_t n_train = std::max<int64_t>(train::build_data(c).train->size(), 1);
  const double items = double(s.result.steps) * double(c.get_int("data.batch_size") * c.get_int("train.grad_accum"));
  s.epochs = items / double(n_train);
  s.epoch_seconds = s.epochs > 0 ? s.result.train_time / s.epochs : 0;
  s.items_per_s = s.result.train_time > 0 ? items / s.result.train_time : 0;
}

// The share of the CPU other work took while this run trained, kept in <run_dir>/machine_load.json
// over every command that trained it (weighted by the training seconds of each): a run read back
// later still says whether it was timed on a busy machine. −1 when nothing measured it.
double record_load(const std::string& run_dir, double share, double trained_seconds) {
  const fs::path file = fs::path(run_dir) / "machine_load.json";
  nlohmann::json j = nlohmann::json::object();
  if (std::ifstream in(file); in) j = nlohmann::json::parse(in, nullptr, false);
  if (!j.is_object()) j = nlohmann::json::object();
  double weighted = j.value("share_seconds", 0.0), seconds = j.value("seconds", 0.0);
  if (trained_seconds > 0) {
    weighted += share * trained_seconds;
    seconds += trained_seconds;
    j["share_seconds"] = weighted;
    j["seconds"] = seconds;
    std::ofstream(file) << j.dump() << "\n";
  }
  return seconds > 0 ? weighted / seconds : -1;
}

// Trains (or resumes) one row with one seed; returns run_train's exit status (130: interrupted).
int train_seed(const ReproduceCommand& cmd, const TableSpec& spec, const std::string& row, int64_t seed,
               const ImageData& image_data, TableRun& run) {
  const std::string config = row_config(cmd, spec, row);
  const std::string run_dir = run_dir_of(cmd, spec, row, seed);
  std::vector<std::string> overrides = {fmt::format("seed={}", seed)};
  overrides.insert(overrides.end(), image_data.overrides.begin(), image_data.overrides.end());
  const std::string command = fmt::format("lintra train {} {} --run-dir {}", config, fmt::join(overrides, " "), run_dir);
  fmt::print(stderr, "\n== {} {} row '{}' seed {}: {}\n", spec.name, cmd.scale, row, seed, command);
  train::TrainCommand tc;
  tc.configs = {config};
  tc.overrides = overrides;
  tc.run_dir = run_dir;
  const double trained_before = fs::exists(fs::path(run_dir) / "metrics.jsonl") ? read_row(row, run_dir, command).train_time : 0;
  const LoadSample before = sample_load();
  if (int rc = train::run_train(tc); rc != 0) return rc;
  const double share = other_share(before, sample_load());
  SeedRun s{.seed = seed, .result = read_row(row, run_dir, command)};
  s.other_share = record_load(run_dir, share, s.result.train_time - trained_before);
  add_rates(train::load_experiment_config({config}, overrides), s);
  run.runs[row].push_back(s);
  return 0;
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
  TableRun run{.spec = &spec,
               .scale = cmd.scale,
               .rows_option = cmd.rows,
               .rows = selected_rows(spec, cmd.rows),
               .seeds = seeds_for(cmd, spec)};
  const auto t0 = std::chrono::steady_clock::now();
  const ImageData image_data = prepare_data(cmd, spec, run.rows[0]);
  run.data_note = image_data.note;
  for (int64_t seed : run.seeds)  // seed by seed, so that a short session still has every row once
    for (const std::string& row : run.rows)  // interrupted: the runs done so far resume next time
      if (int rc = train_seed(cmd, spec, row, seed, image_data, run); rc != 0) return rc;
  if (spec.kind == "image") {  // a grid of generated samples per row, from its first seed
    fs::create_directories(cmd.results_dir);
    for (const std::string& row : run.rows)
      run.grids[row] = sample_grid(spec.name, cmd.scale, row, run_dir_of(cmd, spec, row, run.seeds[0]), cmd.results_dir);
  }
  run.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  fs::create_directories(cmd.results_dir);
  write_results_file(cmd.results_dir, fmt::format("{}-{}.md", spec.name, cmd.scale), results_markdown(run, cmd.results_dir));
  return 0;
}

}  // namespace lintra::experiments
