#include "bench/timer.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <cblas.h>
#include <fmt/format.h>

#include <limits>

#include "core/error.h"
#include "core/openblas_core.h"
#include "core/simd.h"
#include "core/threading.h"

namespace lintra::bench {

namespace {
double seconds_of(const std::function<void()>& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

PairTiming time_pair(const std::function<void()>& a, const std::function<void()>& b, double min_seconds) {
  a();  // warm-up: page in buffers, fill the allocator cache, spin up threads
  b();
  PairTiming t;
  t.a_seconds = t.b_seconds = std::numeric_limits<double>::infinity();
  double total = 0;
  while (t.repeats < 3 || total < min_seconds) {
    double ta = seconds_of(a), tb = seconds_of(b);
    t.a_seconds = std::min(t.a_seconds, ta);
    t.b_seconds = std::min(t.b_seconds, tb);
    total += ta + tb;
    ++t.repeats;
    if (t.repeats >= 1000) break;
  }
  return t;
}

double time_best(const std::function<void()>& f, double min_seconds) {
  f();
  double best = std::numeric_limits<double>::infinity(), total = 0;
  for (int r = 0; r < 1000 && (r < 3 || total < min_seconds); ++r) {
    double t = seconds_of(f);
    best = std::min(best, t);
    total += t;
  }
  return best;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto pos = line.find(':');
      if (pos != std::string::npos) return line.substr(pos + 2);
    }
  }
  return "unknown CPU";
}

std::string blas_core() {
  const char* name = openblas_get_corename();
  return name != nullptr ? std::string(name) : "unknown";
}

std::string blas_core_note(std::string_view running, const char* pick, const char* env) {
  const auto same = [](std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
             return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
  };
  if (pick == nullptr || same(running, pick)) return "";
  const std::string from = env != nullptr ? fmt::format("OPENBLAS_CORETYPE={} from the environment", env)
                                          : fmt::format("OpenBLAS's own pick {}", running);
  return fmt::format("{}; lintra's pick here: {}", from, pick);
}

std::string blas_core_note() {
  return blas_core_note(blas_core(), openblas_core_for_this_cpu(), std::getenv("OPENBLAS_CORETYPE"));
}

std::string machine_line() {
  std::ifstream in("/proc/loadavg");
  double l1 = 0, l5 = 0, l15 = 0;
  in >> l1 >> l5 >> l15;
  const std::string note = blas_core_note();
  return fmt::format("{} threads{}, load average {:.2f} {:.2f} {:.2f}, {}, SIMD target {}, OpenBLAS {}{}", num_threads(),
                     threads_pinned() ? " (pinned)" : "", l1, l5, l15, cpu_model(), simd_target(), blas_core(),
                     note.empty() ? "" : " (" + note + ")");
}

void write_bench_json(const std::string& path, const nlohmann::ordered_json& rows, const char* bench) {
  std::ofstream f(path);
  LINTRA_CHECK(f.good(), "bench {}: cannot write {}", bench, path);
  f << rows.dump(2) << "\n";
  LINTRA_CHECK(f.good(), "bench {}: writing {} failed", bench, path);
  fmt::print("\nwrote {}\n", path);
}

namespace {

// The first line of a shell command's standard output (empty when it fails).
std::string shell_output(const std::string& cmd) {
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

}  // namespace

std::string git_revision() {
  const std::string rev = shell_output("git rev-parse --short HEAD 2>/dev/null");
  if (rev.empty()) return "unknown";
  // Results files being rewritten (by this very command, or one before it) are not code changes.
  const std::string dirty =
      shell_output("git status --porcelain --untracked-files=no -- . ':(exclude)experiments/results' 2>/dev/null");
  return dirty.empty() ? rev : rev + " (with uncommitted changes)";
}

void wait_for_device(const Tensor& t) {
  if (!t.device().is_cpu() && t.numel() > 0) (void)t.reshape({-1}).narrow(0, 0, 1).cpu();
}

}  // namespace lintra::bench
