// shell.h — running external tools (npm, tar) for the data fetchers, and a self-removing temp dir.
//
// Fetchers shell out to standard tools rather than reimplementing them; every call checks the exit
// status and reports the command and its output when it fails.
#pragma once

#include <filesystem>
#include <string>

namespace lintra::data {

// `s` quoted for /bin/sh: 'it'\''s' style, safe for any path.
std::string shell_quote(const std::string& s);

// True when `program` is found on PATH (`command -v`).
bool have_program(const std::string& program);

struct ShellResult {
  int exit_code = -1;  // the command's exit status; -1 when it did not exit normally
  std::string output;  // stdout and stderr together
};

// Runs `command` with /bin/sh (stderr joined to stdout) and returns its status and output.
ShellResult run_shell(const std::string& command);

// Runs `command`; throws naming `what`, the command, its exit status and output when it fails.
std::string run_shell_checked(const std::string& command, const std::string& what);

// A fresh directory under the system temp dir (or `parent` when given), removed with its contents
// when the object is destroyed.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "lintra", const std::filesystem::path& parent = {});
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace lintra::data
