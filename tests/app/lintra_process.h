// lintra_process.h — what the tests of tests/app/ share: running the `lintra` binary as a user does
// (a shell command with its status and output, or a background process), a temporary folder, and
// reading a run's metrics.jsonl. LINTRA_BINARY and LINTRA_SOURCE_DIR come from tests/app/CMakeLists.txt.
#pragma once

#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace lintra::testing {

inline const std::string kLintra = LINTRA_BINARY;
inline const std::string kSource = LINTRA_SOURCE_DIR;

struct Result {
  int status = -1;
  std::string output;
};

// Runs a shell command, capturing stdout+stderr.
inline Result run(const std::string& cmd) {
  Result r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) r.output.append(buf, n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}

// Starts a shell command in the background (output discarded); its pid is the command's own (exec).
inline pid_t spawn(const std::string& cmd) {
  pid_t pid;
  std::string full = "exec " + cmd + " > /dev/null 2>&1";
  const char* argv[] = {"/bin/sh", "-c", full.c_str(), nullptr};
  EXPECT_EQ(posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ), 0);
  return pid;
}

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/lintra-e2e-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The smoke copy config with a few more updates, so that checkpoints fall mid-epoch.
inline std::string train_cmd(const std::string& run_dir, int steps = 12) {
  return kLintra + " train " + kSource + "/configs/copy/smoke/softmax.yaml threads=1 train.steps=" +
         std::to_string(steps) + " train.checkpoint_every=4 train.log_every=1 --run-dir " + run_dir;
}

// The values of `key` on the `split` lines of a run's metrics.jsonl, in order.
inline std::vector<double> split_values(const std::string& run_dir, const std::string& split, const std::string& key) {
  std::ifstream in(run_dir + "/metrics.jsonl");
  std::vector<double> out;
  std::string line;
  const std::string field = "\"" + key + "\":";
  while (std::getline(in, line)) {
    if (line.find("\"split\":\"" + split + "\"") == std::string::npos) continue;
    auto pos = line.find(field);
    if (pos != std::string::npos) out.push_back(std::stod(line.substr(pos + field.size())));
  }
  return out;
}

inline std::vector<double> train_values(const std::string& run_dir, const std::string& key) {
  return split_values(run_dir, "train", key);
}

inline std::vector<double> train_losses(const std::string& run_dir) { return train_values(run_dir, "loss"); }

}  // namespace lintra::testing
