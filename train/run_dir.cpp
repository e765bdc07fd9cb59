#include "train/run_dir.h"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"

namespace lintra::train {

namespace fs = std::filesystem;

std::string utc_timestamp(const char* format) {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

namespace {

std::string read_all(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "line 12: `layers: 4` in the run directory, `layers: 8` now"
std::string first_difference(const std::string& a, const std::string& b) {
  std::istringstream sa(a), sb(b);
  std::string la, lb;
  for (int line = 1;; ++line) {
    bool ea = !std::getline(sa, la), eb = !std::getline(sb, lb);
    if (ea && eb) return "none";
    if (ea || eb || la != lb) return fmt::format("line {}: `{}` in the run directory, `{}` now", line, ea ? "" : la, eb ? "" : lb);
  }
}

}  // namespace

RunDir::RunDir(std::string dir, const std::string& experiment, const std::string& yaml,
               const std::vector<std::string>& overrides, const Resolve& resolve) {
  if (dir.empty()) dir = fmt::format("runs/{}/{}", experiment, utc_timestamp("%Y%m%d-%H%M%S"));
  dir_ = dir;
  fs::path config = fs::path(dir) / "config.yaml";
  existed_ = fs::exists(config);
  if (existed_) {
    std::string stored = read_all(config);
    if (resolve) stored = resolve(stored, config.string());
    LINTRA_CHECK(stored == yaml,
                 "{}: the run directory was made with another config ({}). Resume it with its own config "
                 "(`lintra train {}`), or pick a new --run-dir.",
                 dir, first_difference(stored, yaml), config.string());
  } else {
    std::error_code ec;
    fs::create_directories(fs::path(dir) / "checkpoints", ec);
    LINTRA_CHECK(!ec, "{}: cannot create the run directory: {}", dir, ec.message());
    std::ofstream out(config);
    out << yaml;
    LINTRA_CHECK(out.good(), "{}: cannot write config.yaml", dir);
  }
  fs::create_directories(fs::path(dir) / "checkpoints");
  fs::create_directories(fs::path(dir) / "samples");
  {
    std::ofstream ov(fs::path(dir) / "overrides.txt", std::ios::app);
    ov << "# " << utc_timestamp() << (existed_ ? " (resumed)" : "") << "\n";
    for (const auto& o : overrides) ov << o << "\n";
  }
  log_.open(fs::path(dir) / "train.log", std::ios::app);
  metrics_.open(fs::path(dir) / "metrics.jsonl", std::ios::app);
  LINTRA_CHECK(log_.good() && metrics_.good(), "{}: cannot open train.log / metrics.jsonl", dir);
}

void RunDir::log(const std::string& line) {
  log_ << utc_timestamp() << " " << line << "\n";
  log_.flush();
  std::fprintf(stderr, "%s\n", line.c_str());
}

void RunDir::metrics(const std::string& split, const std::map<std::string, double>& values) {
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
  metrics_ << j.dump() << "\n";
  metrics_.flush();
}

}  // namespace lintra::train
