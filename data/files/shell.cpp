// shell.cpp — popen-based command runner, shell quoting and TempDir.
#include "data/files/shell.h"

#include <stdlib.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/error.h"

namespace lintra::data {

namespace fs = std::filesystem;

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

bool have_program(const std::string& program) {
  return run_shell("command -v " + shell_quote(program) + " >/dev/null 2>&1").exit_code == 0;
}

ShellResult run_shell(const std::string& command) {
  ShellResult r;
  std::string full = "( " + command + " ) 2>&1";
  FILE* pipe = popen(full.c_str(), "r");
  LINTRA_CHECK(pipe != nullptr, "cannot run '{}': {}", command, std::strerror(errno));
  char buf[4096];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, got);
  int status = pclose(pipe);
  r.exit_code = (status != -1 && WIFEXITED(status)) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string run_shell_checked(const std::string& command, const std::string& what) {
  ShellResult r = run_shell(command);
  LINTRA_CHECK(r.exit_code == 0, "{} failed (exit status {}): {}\n{}", what, r.exit_code, command, r.output);
  return r.output;
}

TempDir::TempDir(const std::string& prefix, const fs::path& parent) {
  fs::path base = parent.empty() ? fs::temp_directory_path() : parent;
  std::string templ = (base / (prefix + "-XXXXXX")).string();
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  LINTRA_CHECK(mkdtemp(buf.data()) != nullptr, "cannot create a temporary directory '{}': {}", templ,
               std::strerror(errno));
  path_ = buf.data();
}

TempDir::~TempDir() {
  std::error_code ec;  // never throw from a destructor
  fs::remove_all(path_, ec);
}

}  // namespace lintra::data
