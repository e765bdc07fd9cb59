// run_lock.h — one training process per run directory: an exclusive flock(2) on <dir>/lock, held for
// as long as the RunLock lives (the whole run).
//
// The file holds the holder's pid ("<pid>\n"), written as soon as the lock is held and emptied when
// it is released cleanly; the file itself stays (removing it would let two processes lock two
// different files of one name). A flock belongs to the open file, and the kernel drops it when the
// process ends however it ends, so a lock whose process is gone (SIGKILL, a crash) is simply taken
// over by the next process, which finds the dead holder's pid still written there and reports it
// (previous_holder()). A process that finds the lock held fails at once, without waiting, naming the
// holder's pid. The descriptor is close-on-exec: commands the trainer runs do not inherit the lock.
#pragma once

#include <cstdint>
#include <string>

namespace lintra::train {

class RunLock {
 public:
  // Takes the lock of `dir` (which must exist). Throws lintra::Error naming the holder's pid when
  // another process holds it, or the reason (strerror) when the lock file cannot be made or locked.
  explicit RunLock(const std::string& dir);
  ~RunLock();
  RunLock(RunLock&& other) noexcept;
  RunLock& operator=(RunLock&& other) noexcept;
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

  const std::string& path() const { return path_; }
  // The pid left in the file by a process that ended without releasing the lock; 0 when there was none.
  int64_t previous_holder() const { return previous_; }

 private:
  void release();
  int fd_ = -1;
  std::string path_;
  int64_t previous_ = 0;
};

// The pid written in a lock file (0 when it is empty, missing or unreadable).
int64_t read_lock_holder(const std::string& lock_path);

}  // namespace lintra::train
