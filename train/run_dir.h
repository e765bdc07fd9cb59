// run_dir.h — a run directory (DESIGN.md §6): config.yaml (the resolved config, re-runnable),
// overrides.txt, train.log, metrics.jsonl (one JSON object per line, flushed per line; see
// train/metrics_file.h), checkpoints/, samples/, and `lock` (train/run_lock.h: one training process
// at a time; it holds that process's pid).
//
// Opening one takes its lock first, then either writes config.yaml (a new run) or compares the
// stored one with the config given now (train/stored_config.h: the same config resumes; raising
// train.steps or train.time_budget continues a finished run, and config.yaml is rewritten with the
// new values; any other difference is an error naming the keys). The stored config is first passed
// through `resolve` (the trainer re-resolves it against the current schema), so a key added to the
// schema later, with its default, does not orphan existing runs.
//
// The trainer opens a new run directory only once the config, the data and the model have passed
// their checks, so that a mistake leaves nothing on disk; errors after that go to train.log too.
#pragma once

#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "train/run_lock.h"
#include "train/stored_config.h"

namespace lintra::train {

class RunDir {
 public:
  using Resolve = std::function<std::string(const std::string& yaml, const std::string& path)>;
  // Opens `dir` (made when missing, with checkpoints/ and samples/), locked for this process.
  RunDir(std::string dir, const std::string& resolved_yaml, const std::vector<std::string>& overrides,
         const Resolve& resolve = {});
  // True when `dir` holds a run (its config.yaml exists): opening it resumes that run.
  static bool holds_run(const std::string& dir);

  const std::string& path() const { return dir_; }
  std::string checkpoints() const { return dir_ + "/checkpoints"; }
  std::string samples() const { return dir_ + "/samples"; }
  bool existed() const { return existed_; }
  const RunLock& lock() const { return lock_; }
  // The keys this opening raised over the stored config (empty for a new run or the same config).
  const std::vector<RaisedKey>& raised() const { return raised_; }

  // A line in train.log (with a UTC timestamp) and on stderr.
  void log(const std::string& line);
  // A line in train.log only (what main prints itself, such as the error that ends the run).
  void log_quietly(const std::string& line);
  // One metrics.jsonl line: numbers, and the split as a string.
  void metrics(const std::string& split, const std::map<std::string, double>& values);
  // For a run resumed at `step`: drops the metrics.jsonl lines past it (train/metrics_file.h) and
  // says so in train.log.
  void resume_metrics_at(int64_t step);

 private:
  void open_config(const std::string& yaml, const Resolve& resolve);
  void open_files();
  std::string dir_;
  RunLock lock_;
  bool existed_ = false;
  std::vector<RaisedKey> raised_;
  std::ofstream log_, metrics_;
};

std::string utc_timestamp(const char* format = "%Y-%m-%dT%H:%M:%SZ");
// runs/<experiment>/<UTC timestamp>: the run directory when --run-dir is not given.
std::string default_run_dir(const std::string& experiment);

}  // namespace lintra::train
