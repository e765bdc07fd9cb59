#include "train/stored_config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <optional>

#include "core/error.h"

namespace lintra::train {

namespace {

// Every leaf of a config (scalars and lists) by dotted key, as YAML text.
using Leaves = std::map<std::string, std::string>;

void flatten(const ConfigNode& node, const std::string& prefix, Leaves& out) {
  if (node.is_mapping()) {
    for (const auto& e : node.entries) flatten(e.value, prefix.empty() ? e.key : prefix + "." + e.key, out);
    if (node.entries.empty() && !prefix.empty()) out[prefix] = "{}";
    return;
  }
  std::string text = to_yaml(Config(node));
  while (!text.empty() && text.back() == '\n') text.pop_back();
  out[prefix] = text;
}

Leaves leaves(const Config& cfg) {
  Leaves out;
  flatten(cfg.node(), "", out);
  return out;
}

std::optional<double> number(const std::string& text) {
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// True when `key` may change from `before` to `after` on resume.
bool may_grow(const std::string& key, const std::string& before, const std::string& after) {
  if (key == "device") return true;  // where the run computes, not what: checkpoints hold CPU tensors
  const auto b = number(before), a = number(after);
  if (!a || !b) return false;
  if (key == "train.steps") return *a > *b;
  if (key == "train.time_budget") return *b > 0 && (*a == 0 || *a > *b);  // 0: no budget
  return false;
}

// A quoted YAML scalar without escapes ("strict:0") as its text, for the log; anything else as it is.
std::string unquoted(const std::string& text) {
  const bool quoted = text.size() >= 2 && text.front() == '"' && text.back() == '"' &&
                      text.find_first_of("\\\"", 1) == text.size() - 1;
  return quoted ? text.substr(1, text.size() - 2) : text;
}

std::string shown(const std::optional<std::string>& v) { return v ? "`" + *v + "`" : "absent"; }

}  // namespace

std::vector<RaisedKey> compare_stored_config(const Config& stored, const Config& now, const std::string& dir) {
  const Leaves a = leaves(stored), b = leaves(now);
  std::map<std::string, std::pair<std::optional<std::string>, std::optional<std::string>>> differ;
  for (const auto& [k, v] : a)
    if (auto it = b.find(k); it == b.end() || it->second != v) differ[k] = {v, it == b.end() ? std::nullopt : std::optional(it->second)};
  for (const auto& [k, v] : b)
    if (!a.count(k)) differ[k] = {std::nullopt, v};
  std::vector<RaisedKey> raised;
  std::vector<std::string> refused;
  for (const auto& [key, values] : differ) {
    const auto& [before, after] = values;
    if (before && after && may_grow(key, *before, *after)) {
      raised.push_back({key, unquoted(*before), unquoted(*after)});
    } else {
      const bool lowered = key == "train.steps" || key == "train.time_budget";
      refused.push_back(fmt::format("{}: {} in the run directory, {} now{}", key, shown(before), shown(after),
                                    lowered ? " (a resumed run may only raise it)" : ""));
    }
  }
  LINTRA_CHECK(refused.empty(),
               "{}: the run directory was made with another config ({} key(s) differ):\n  {}\nResume it with its own "
               "config (`lintra train {}/config.yaml`; train.steps and train.time_budget may be raised, device may "
               "change), or pick a new --run-dir.",
               dir, refused.size(), fmt::join(refused, "\n  "), dir);
  return raised;
}

}  // namespace lintra::train
