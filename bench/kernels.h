// kernels.h — `lintra bench kernels`: lintra's kernels against the direct library call or a
// plain memory copy, timed side by side in one run (bench/timer.h). Not a test: prints a
// table and optionally writes JSON (one object per case: name, lintra, reference, ratio, unit,
// reference_is, and the machine: cpu, simd_target — the ISA the kernels dispatched to — and threads).
#pragma once

#include <string>

namespace lintra::bench {

struct KernelBenchOptions {
  std::string json_path;     // empty: no JSON
  double min_seconds = 1.0;  // per case, both candidates together
  std::string filter;        // only cases whose name contains this
};

void run_kernel_benchmarks(const KernelBenchOptions& options);

}  // namespace lintra::bench
