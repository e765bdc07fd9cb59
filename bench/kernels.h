// kernels.h — `lintra bench kernels`: lintra's kernels against the direct library call or a
// plain memory copy, timed side by side in one run (bench/timer.h). Not a test: prints a
// table and optionally writes JSON (one object per case: name, lintra, reference, ratio, unit,
// reference_is, and the machine: cpu, simd_target — the ISA the kernels dispatched to — and threads).
// On a GPU (device cuda:N) the cases are the model's matrix products and the causal product, against
// cuBLAS called directly (bench/cuda_reference.h); the rows name the device instead of the ISA.
#pragma once

#include <string>

namespace lintra::bench {

struct KernelBenchOptions {
  std::string json_path;     // empty: no JSON
  double min_seconds = 1.0;  // per case, both candidates together
  std::string filter;        // only cases whose name contains this
  std::string device = "cpu";  // cpu, or cuda[:N]: lintra's matmul and causal product against direct cuBLAS
};

void run_kernel_benchmarks(const KernelBenchOptions& options);

}  // namespace lintra::bench
