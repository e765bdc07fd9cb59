#include "train/metrics_file.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "train/checkpoint/checkpoint.h"

namespace lintra::train {

std::string metrics_line(const std::string& split, const std::map<std::string, double>& values) {
  nlohmann::ordered_json j;
  // step and epoch first, then the split, then the rest.
  for (const char* k : {"step", "epoch"})
    if (values.count(k)) j[k] = int64_t(values.at(k));
  j["split"] = split;
  for (const auto& [k, v] : values) {
    if (k == "step" || k == "epoch") continue;
    if (std::isfinite(v)) j[k] = v;
    else j[k] = nullptr;
  }
  return j.dump();
}

namespace {

struct Line {
  std::string text;
  std::string split;
  int64_t step = -1;  // -1: unreadable
};

Line parse_line(std::string text) {
  Line l{std::move(text)};
  const nlohmann::json j = nlohmann::json::parse(l.text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("step") || !j["step"].is_number_integer()) return l;
  l.step = j["step"].get<int64_t>();
  if (j.contains("split") && j["split"].is_string()) l.split = j["split"].get<std::string>();
  return l;
}

}  // namespace

MetricsTrim drop_metrics_after(const std::string& path, int64_t step) {
  MetricsTrim t;
  std::ifstream in(path);
  if (!in) return t;
  std::vector<Line> lines;
  for (std::string text; std::getline(in, text);)
    if (!text.empty()) lines.push_back(parse_line(std::move(text)));
  in.close();
  std::map<std::pair<std::string, int64_t>, size_t> last;  // (split, step) → index of its last line
  for (size_t i = 0; i < lines.size(); ++i)
    if (lines[i].step >= 0) last[{lines[i].split, lines[i].step}] = i;
  std::string kept;
  for (size_t i = 0; i < lines.size(); ++i) {
    const Line& l = lines[i];
    if (l.step < 0) {
      ++t.unreadable;
    } else if (l.step > step || last[{l.split, l.step}] != i) {
      ++t.dropped;
    } else {
      kept += l.text + "\n";
      ++t.kept;
    }
  }
  if (t.dropped > 0 || t.unreadable > 0) write_file_atomically(path, kept);
  return t;
}

}  // namespace lintra::train
