// manager.cpp — the run directory's checkpoints/ folder (CheckpointManager: step files, `latest`,
// best.h5, retention, falling back past broken files), resolving what `eval`/`sample` are given, and
// the durable small files they need (atomic writes, fsync of a directory).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/ranges.h>

#include "train/checkpoint/checkpoint.h"
#include "train/checkpoint/detail.h"

namespace lintra {

namespace fs = std::filesystem;

// --- durable small files ---------------------------------------------------------------------------

void fsync_directory(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw Error(fmt::format("{}: cannot open directory to fsync: {}", dir, std::strerror(errno)));
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) throw Error(fmt::format("{}: fsync of the directory failed: {}", dir, std::strerror(err)));
}

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  auto fail = [&](const std::string& what) {
    int err = errno;
    std::error_code ec;
    fs::remove(tmp, ec);
    throw Error(fmt::format("{}: cannot write: {} ({})", path, what, std::strerror(err)));
  };
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("open of " + tmp + " failed");
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      ::close(fd);
      errno = err;
      fail("write failed");
    }
    done += size_t(n);
  }
  if (::fsync(fd) != 0) {
    int err = errno;
    ::close(fd);
    errno = err;
    fail("fsync failed");
  }
  if (::close(fd) != 0) fail("close failed");
  if (std::rename(tmp.c_str(), path.c_str()) != 0) fail("rename failed");
  fs::path parent = fs::path(path).parent_path();
  fsync_directory(parent.empty() ? "." : parent.string());
}

// --- CheckpointManager -----------------------------------------------------------------------------

namespace {

// The step of "step_<N>.h5", or -1.
int64_t parse_step(const std::string& name) {
  const std::string prefix = "step_", suffix = ".h5";
  if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return -1;
  }
  std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (digits.size() > 18 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return -1;
  }
  return std::stoll(digits);
}

}  // namespace

CheckpointManager::CheckpointManager(std::string dir, int64_t keep_last, int64_t keep_every, bool create)
    : dir_(std::move(dir)), keep_last_(keep_last), keep_every_(keep_every) {
  if (keep_last_ < 1) throw Error(fmt::format("{}: keep_last must be at least 1, got {}", dir_, keep_last_));
  if (keep_every_ < 0) throw Error(fmt::format("{}: keep_every must be 0 (off) or positive, got {}", dir_, keep_every_));
  if (!create) return;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec || !fs::is_directory(dir_)) {
    throw Error(fmt::format("{}: cannot create the checkpoint directory: {}", dir_, ec ? ec.message() : "not a directory"));
  }
}

std::string CheckpointManager::path_for_step(int64_t step) const {
  return (fs::path(dir_) / fmt::format("step_{}.h5", step)).string();
}

std::vector<int64_t> CheckpointManager::steps() const {
  std::vector<int64_t> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    int64_t step = parse_step(entry.path().filename().string());
    if (step >= 0) out.push_back(step);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string resolve_checkpoint_path(const std::string& argument, const std::function<void(const std::string&)>& log) {
  const fs::path p(argument);
  std::error_code ec;
  LINTRA_CHECK(fs::exists(p, ec), "{}: no such file or directory", argument);
  fs::path dir;
  if (fs::is_directory(p, ec)) {
    dir = fs::is_directory(p / "checkpoints", ec) ? p / "checkpoints" : p;
  } else if (p.filename() == "latest") {
    dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  } else {
    return argument;
  }
  const CheckpointManager manager(dir.string(), 1, 0, /*create=*/false);
  const std::optional<std::string> name = manager.latest_name();
  if (name && fs::is_regular_file(dir / *name, ec)) return (dir / *name).string();
  // Like `lintra train` resuming: the newest step file that verifies.
  std::optional<std::string> newest = manager.newest_complete(log);
  LINTRA_CHECK(newest.has_value(), "{}: no usable checkpoint here ({}; no step_<N>.h5 in {} verifies)", argument,
               name ? fmt::format("{} names {}, which does not exist", (dir / "latest").string(), *name)
                    : fmt::format("no 'latest' pointer file at {}", (dir / "latest").string()),
               dir.string());
  if (log)
    log(fmt::format("note: {}; using {}, the newest complete checkpoint",
                    name ? fmt::format("{} names {}, which does not exist", (dir / "latest").string(), *name)
                         : fmt::format("{} has no 'latest' pointer file", dir.string()),
                    *newest));
  return *newest;
}

std::optional<std::string> CheckpointManager::latest_name() const {
  std::ifstream in(fs::path(dir_) / "latest");
  if (!in) return std::nullopt;
  std::string name;
  std::getline(in, name);
  while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) name.pop_back();
  if (name.empty()) return std::nullopt;
  return name;
}

void CheckpointManager::remove_stale_tmp() const {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    std::string name = entry.path().filename().string();
    if (name.size() <= 4 || name.compare(name.size() - 4, 4, ".tmp") != 0) continue;
    std::string base = name.substr(0, name.size() - 4);
    if (base == "latest" || base == "best.h5" || parse_step(base) >= 0) fs::remove(entry.path(), ec);
  }
}

void CheckpointManager::apply_retention() const {
  std::vector<int64_t> all = steps();
  std::set<int64_t> keep;
  for (size_t i = all.size() > size_t(keep_last_) ? all.size() - size_t(keep_last_) : 0; i < all.size(); ++i) {
    keep.insert(all[i]);
  }
  if (std::optional<std::string> latest = latest_name()) keep.insert(parse_step(*latest));
  for (int64_t step : all) {
    if (keep.count(step) || (keep_every_ > 0 && step % keep_every_ == 0)) continue;
    std::error_code ec;
    fs::remove(path_for_step(step), ec);
  }
}

std::string CheckpointManager::save(int64_t step, const CheckpointData& data) {
  if (step < 0) throw Error(fmt::format("{}: checkpoint step must be >= 0, got {}", dir_, step));
  remove_stale_tmp();
  std::string path = path_for_step(step);
  save_checkpoint(path, data);
  write_file_atomically((fs::path(dir_) / "latest").string(), fs::path(path).filename().string() + "\n");
  apply_retention();
  return path;
}

std::string CheckpointManager::save_best(const CheckpointData& data) {
  std::string path = (fs::path(dir_) / "best.h5").string();
  save_checkpoint(path, data);
  return path;
}

// What the resumed-from checkpoint is, against what `latest` says (a note only when they differ).
std::string CheckpointManager::latest_note(const std::string& chosen) const {
  const std::optional<std::string> latest = latest_name();
  const std::string chosen_name = fs::path(chosen).filename().string();
  if (!latest || *latest == chosen_name) return {};
  std::error_code ec;
  if (!fs::exists(fs::path(dir_) / *latest, ec))
    return fmt::format("note: {}/latest names {}, which does not exist; using {}, the newest complete checkpoint", dir_,
                       *latest, chosen);
  if (parse_step(*latest) < parse_step(chosen_name))
    return fmt::format("note: {}/latest names {}, but {} is newer and complete; using it", dir_, *latest, chosen);
  return fmt::format("note: {}/latest names {}; using {}, the newest complete checkpoint", dir_, *latest, chosen);
}

std::optional<LoadedCheckpoint> CheckpointManager::load_latest(const Log& log) const {
  std::vector<int64_t> all = steps();
  int64_t skipped = 0;
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    std::string path = path_for_step(*it);
    try {
      CheckpointData data = load_checkpoint(path);
      if (log && skipped > 0) {
        log(fmt::format("WARNING: resuming from the older checkpoint {} after skipping {} broken one(s)", path,
                        skipped));
      } else if (const std::string note = latest_note(path); log && !note.empty()) {
        log(note);
      }
      return LoadedCheckpoint{path, std::move(data)};
    } catch (const Error& e) {
      ++skipped;
      if (log) log(fmt::format("WARNING: skipping broken checkpoint {}:\n  {}", path, e.what()));
    }
  }
  if (log && skipped > 0) log(fmt::format("WARNING: {}: none of the {} checkpoints is usable", dir_, skipped));
  return std::nullopt;
}

std::optional<std::string> CheckpointManager::newest_complete(const Log& log) const {
  std::vector<int64_t> all = steps();
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    const std::string path = path_for_step(*it);
    const VerifyReport r = verify_checkpoint(path);
    if (r.ok) return path;
    if (log) log(fmt::format("WARNING: skipping broken checkpoint {}:\n  {}", path, fmt::join(r.problems, "\n  ")));
  }
  return std::nullopt;
}

}  // namespace lintra
