#include "experiments/row_result.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace lintra::experiments {

namespace fs = std::filesystem;

RowResult read_row(const std::string& row, const std::string& run_dir, const std::string& command) {
  RowResult r;
  r.row = row;
  r.command = command;
  std::ifstream in(fs::path(run_dir) / "metrics.jsonl");
  std::string line;
  double rate_sum = 0;
  int64_t rate_n = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) continue;
    std::map<std::string, double> m;
    for (auto it = j.begin(); it != j.end(); ++it)
      if (it.value().is_number()) m[it.key()] = it.value().get<double>();
    const std::string split = j.value("split", "");
    if (split == "train") {
      r.last_train = m;
      if (m.count("step") && m.count("loss")) r.train_steps.push_back(m["step"]), r.train_loss.push_back(m["loss"]);
      if (m.count("items_per_s")) rate_sum += m["items_per_s"], ++rate_n;
    } else if (split == "eval") {
      r.last_eval = m;
      if (m.count("step") && m.count("loss")) r.eval_steps.push_back(m["step"]), r.eval_loss.push_back(m["loss"]);
      if (m.count("wall_time") && m.count("per")) r.eval_wall.push_back(m["wall_time"]), r.eval_per.push_back(m["per"]);
    }
    if (m.count("wall_time")) r.wall_time = std::max(r.wall_time, m["wall_time"]);
    if (m.count("step")) r.steps = std::max<int64_t>(r.steps, int64_t(m["step"]));
  }
  r.present = !r.last_train.empty();
  r.items_per_s = rate_n ? rate_sum / double(rate_n) : 0;
  return r;
}

std::string fmt_metric(const std::map<std::string, double>& m, const char* key, const char* f) {
  auto it = m.find(key);
  return it == m.end() ? "—" : fmt::format(fmt::runtime(f), it->second);
}

// The paper's qualitative finding for the copy task, checked on the final evaluation losses.
}  // namespace lintra::experiments
