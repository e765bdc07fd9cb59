#include "train/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <string_view>

#include "core/error.h"

namespace lintra::train {

namespace {

// The pid at the start of an open lock file (0 when there is none).
int64_t read_pid(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return 0;
  std::string_view text(buf, size_t(n));
  int64_t pid = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), pid);
  return ec == std::errc() && ptr != text.data() && pid > 0 ? pid : 0;
}

void write_pid(int fd, const std::string& path) {
  const std::string text = fmt::format("{}\n", ::getpid());
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, text.data(), text.size(), 0) != ssize_t(text.size()))
    throw Error(fmt::format("{}: cannot write this process's pid into the lock file: {}", path, std::strerror(errno)));
}

[[noreturn]] void fail_held(int fd, const std::string& dir, const std::string& path) {
  const int64_t pid = read_pid(fd);
  ::close(fd);
  const std::string who = pid > 0 ? fmt::format("pid {}", pid) : "a process that has only just started";
  const std::string stop = pid > 0 ? fmt::format(", stop it with `kill -INT {}` (it checkpoints and exits)", pid) : "";
  throw Error(fmt::format(
      "{}: another `lintra train` ({}) is training in this run directory (it holds the lock {}). Wait for it to "
      "finish{}, or pick another --run-dir.",
      dir, who, path, stop));
}

}  // namespace

int64_t read_lock_holder(const std::string& lock_path) {
  const int fd = ::open(lock_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  const int64_t pid = read_pid(fd);
  ::close(fd);
  return pid;
}

RunLock::RunLock(const std::string& dir) : path_((std::filesystem::path(dir) / "lock").string()) {
  const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(fmt::format("{}: cannot open the run directory's lock file: {}", path_, std::strerror(errno)));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err == EWOULDBLOCK) fail_held(fd, dir, path_);
    ::close(fd);
    throw Error(fmt::format("{}: cannot lock the run directory: {}", path_, std::strerror(err)));
  }
  fd_ = fd;
  previous_ = read_pid(fd_);
  if (previous_ == int64_t(::getpid())) previous_ = 0;
  try {
    write_pid(fd_, path_);
  } catch (...) {
    release();
    throw;
  }
}

RunLock::~RunLock() { release(); }

RunLock::RunLock(RunLock&& other) noexcept { *this = std::move(other); }

RunLock& RunLock::operator=(RunLock&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = other.fd_;
    path_ = std::move(other.path_);
    previous_ = other.previous_;
    other.fd_ = -1;
  }
  return *this;
}

// A clean release empties the file first, so that only a holder that died leaves its pid behind.
void RunLock::release() {
  if (fd_ < 0) return;
  (void)!::ftruncate(fd_, 0);
  ::close(fd_);  // drops the flock
  fd_ = -1;
}

}  // namespace lintra::train
