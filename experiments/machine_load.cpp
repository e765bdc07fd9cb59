#include "experiments/machine_load.h"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>

namespace lintra::experiments {

namespace {

// Busy CPU seconds of the whole machine from the first line of /proc/stat (0 where it is missing).
double machine_busy_seconds() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  in >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
  if (!in || cpu != "cpu") return 0;
  const double tick = double(sysconf(_SC_CLK_TCK));
  return (user + nice + system + irq + softirq + steal) / (tick > 0 ? tick : 100);
}

double self_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return double(t.tv_sec) + 1e-6 * double(t.tv_usec); };
  return s(u.ru_utime) + s(u.ru_stime);
}

}  // namespace

LoadSample sample_load() {
  LoadSample s;
  s.machine_busy_s = machine_busy_seconds();
  s.self_s = self_seconds();
  s.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  s.cpus = int(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  return s;
}

double other_share(const LoadSample& a, const LoadSample& b) {
  const double wall = b.wall_s - a.wall_s;
  if (wall <= 0) return 0;
  const double others = (b.machine_busy_s - a.machine_busy_s) - (b.self_s - a.self_s);
  return std::clamp(others / (wall * double(b.cpus)), 0.0, 1.0);
}

std::string load_note(double share) {
  if (share < 0) return "not timed by this command";
  if (share <= kBusyShare) return "quiet";
  return fmt::format("**busy**: other work took {:.0f}% of the CPU", 100 * share);
}

}  // namespace lintra::experiments
