// run_dir.h — a run directory (DESIGN.md §6): config.yaml (the resolved config, re-runnable),
// overrides.txt, train.log, metrics.jsonl (one JSON object per line, flushed per line),
// checkpoints/, samples/. Opening an existing run directory with the same config resumes it;
// with a different config it is an error that names the first differing line. The stored config is
// first passed through `resolve` (the trainer re-resolves it against the current schema), so a key
// added to the schema later, with its default, does not orphan existing runs.
#pragma once

#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace lintra::train {

class RunDir {
 public:
  // Creates `dir` (or, when empty, runs/<experiment>/<UTC timestamp>) and its files.
  using Resolve = std::function<std::string(const std::string& yaml, const std::string& path)>;
  RunDir(std::string dir, const std::string& experiment, const std::string& resolved_yaml,
         const std::vector<std::string>& overrides, const Resolve& resolve = {});
  const std::string& path() const { return dir_; }
  std::string checkpoints() const { return dir_ + "/checkpoints"; }
  std::string samples() const { return dir_ + "/samples"; }
  bool existed() const { return existed_; }

  // A line in train.log (with a UTC timestamp) and on stderr.
  void log(const std::string& line);
  // One metrics.jsonl line: numbers, and the split as a string.
  void metrics(const std::string& split, const std::map<std::string, double>& values);

 private:
  std::string dir_;
  bool existed_ = false;
  std::ofstream log_, metrics_;
};

std::string utc_timestamp(const char* format = "%Y-%m-%dT%H:%M:%SZ");

}  // namespace lintra::train
