#include "train/run_dir.h"

#include <chrono>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <sstream>

#include "core/error.h"
#include "train/checkpoint/checkpoint.h"
#include "train/metrics_file.h"

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

std::string default_run_dir(const std::string& experiment) {
  return fmt::format("runs/{}/{}", experiment, utc_timestamp("%Y%m%d-%H%M%S"));
}

namespace {

std::string read_all(const fs::path& p) {
  std::ifstream in(p);
  LINTRA_CHECK(in.good(), "{}: cannot read: {}", p.string(), std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void make_dir(const fs::path& p, const std::string& what) {
  std::error_code ec;
  fs::create_directories(p, ec);
  LINTRA_CHECK(!ec && fs::is_directory(p), "{}: cannot create the {}: {}", p.string(), what,
               ec ? ec.message() : "a file of that name is in the way");
}

// `dir`, made (with its parents) when missing: the lock file lives in it.
std::string made(std::string dir) {
  make_dir(dir, "run directory");
  return dir;
}

}  // namespace

bool RunDir::holds_run(const std::string& dir) {
  std::error_code ec;
  return fs::exists(fs::path(dir) / "config.yaml", ec);
}

RunDir::RunDir(std::string dir, const std::string& yaml, const std::vector<std::string>& overrides,
               const Resolve& resolve)
    : dir_(made(std::move(dir))), lock_(dir_) {
  open_config(yaml, resolve);
  make_dir(fs::path(dir_) / "checkpoints", "checkpoints folder");
  make_dir(fs::path(dir_) / "samples", "samples folder");
  {
    std::ofstream ov(fs::path(dir_) / "overrides.txt", std::ios::app);
    ov << "# " << utc_timestamp() << (existed_ ? " (resumed)" : "") << "\n";
    for (const auto& o : overrides) ov << o << "\n";
    ov.close();
    LINTRA_CHECK(ov.good(), "{}/overrides.txt: cannot write: {}", dir_, std::strerror(errno));
  }
  open_files();
  if (lock_.previous_holder() > 0)
    log(fmt::format("note: the previous process of this run (pid {}) ended without releasing {} (killed?); "
                    "this one took it over",
                    lock_.previous_holder(), lock_.path()));
  for (const RaisedKey& r : raised_)
    log(fmt::format("{} {} from {} to {}: the run continues from its newest checkpoint (config.yaml updated)", r.key,
                    r.key == "device" ? "changed" : "raised", r.before, r.after));
}

// A new run writes config.yaml; an existing one must hold the same config, up to raised keys.
void RunDir::open_config(const std::string& yaml, const Resolve& resolve) {
  const fs::path config = fs::path(dir_) / "config.yaml";
  existed_ = fs::exists(config);
  if (!existed_) {
    write_file_atomically(config.string(), yaml);
    return;
  }
  std::string stored = read_all(config);
  if (resolve) stored = resolve(stored, config.string());
  if (stored == yaml) return;
  raised_ = compare_stored_config(parse_config(stored, config.string()), parse_config(yaml, "the config given now"),
                                  dir_);
  write_file_atomically(config.string(), yaml);
}

void RunDir::open_files() {
  for (auto [stream, name] : {std::pair{&log_, "train.log"}, std::pair{&metrics_, "metrics.jsonl"}}) {
    stream->open(fs::path(dir_) / name, std::ios::app);
    LINTRA_CHECK(stream->good(), "{}/{}: cannot open for writing: {}", dir_, name, std::strerror(errno));
  }
}

void RunDir::log_quietly(const std::string& line) {
  log_ << utc_timestamp() << " " << line << "\n";
  log_.flush();
}

void RunDir::log(const std::string& line) {
  log_quietly(line);
  std::fprintf(stderr, "%s\n", line.c_str());
}

void RunDir::metrics(const std::string& split, const std::map<std::string, double>& values) {
  metrics_ << metrics_line(split, values) << "\n";
  metrics_.flush();
}

void RunDir::resume_metrics_at(int64_t step) {
  const std::string path = (fs::path(dir_) / "metrics.jsonl").string();
  metrics_.close();
  const MetricsTrim t = drop_metrics_after(path, step);
  metrics_.open(path, std::ios::app);
  LINTRA_CHECK(metrics_.good(), "{}: cannot open for writing: {}", path, std::strerror(errno));
  if (t.dropped > 0 || t.unreadable > 0)
    log(fmt::format("metrics.jsonl: dropped {} line(s) past step {} (written after the checkpoint this run resumes "
                    "from; the resumed run writes them again){}",
                    t.dropped, step, t.unreadable > 0 ? fmt::format(" and {} unreadable line(s)", t.unreadable) : ""));
}

}  // namespace lintra::train
