#include "experiments/row_result.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace lintra::experiments {

namespace fs = std::filesystem;

namespace {

// One metrics.jsonl line: its numbers and its split; false for a line that is not a JSON object.
bool parse_line(const std::string& line, std::map<std::string, double>& m, std::string& split) {
  auto j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return false;
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.value().is_number()) m[it.key()] = it.value().get<double>();
  split = j.value("split", "");
  return true;
}

}  // namespace

RowResult read_row(const std::string& row, const std::string& run_dir, const std::string& command) {
  RowResult r;
  r.row = row;
  r.command = command;
  std::ifstream in(fs::path(run_dir) / "metrics.jsonl");
  bool has_train_time = false;
  for (std::string line; std::getline(in, line);) {
    std::map<std::string, double> m;
    std::string split;
    if (line.empty() || !parse_line(line, m, split)) continue;
    has_train_time = has_train_time || m.count("train_seconds");
    const double t = m.count("train_seconds") ? m["train_seconds"] : m.count("wall_time") ? m["wall_time"] : NAN;
    if (split == "train") {
      r.last_train = m;
      if (m.count("step") && m.count("loss")) r.train_steps.push_back(m["step"]), r.train_loss.push_back(m["loss"]);
    } else if (split == "eval") {
      r.last_eval = m;
      if (m.count("step") && m.count("loss")) r.eval_steps.push_back(m["step"]), r.eval_loss.push_back(m["loss"]);
      if (m.count("per")) r.eval_time.push_back(t), r.eval_per.push_back(m["per"]);
    }
    if (m.count("wall_time")) r.wall_time = std::max(r.wall_time, m["wall_time"]);
    if (m.count("train_seconds")) r.train_time = std::max(r.train_time, m["train_seconds"]);
    if (m.count("step")) r.steps = std::max<int64_t>(r.steps, int64_t(m["step"]));
  }
  if (!has_train_time) r.train_time = r.wall_time;
  r.present = !r.last_train.empty();
  return r;
}

// The paper's qualitative finding for the copy task, checked on the final evaluation losses.
}  // namespace lintra::experiments
