// experiments/kernels/gemm_beta.cpp — what does BLAS's beta = 0 cost? OpenBLAS's level-3 driver
// scales C by beta in a pass of its own before the kernel accumulates into it (beta = 0: a memset of
// C, or sgemm_beta's zeroing stores), so a product written into a fresh output passes over C one more
// time than one accumulated onto values already there (beta = 1, no pass). In `perf record` of the
// CIFAR-10 causal-linear step those passes (memset and sgemm_beta) take about 2–3% of the samples.
// This lab times, on one thread, the panels lintra's matmul hands to OpenBLAS (core/cpu/matmul.cpp
// gemm_panels: rows of C) at the model's backward shapes dX = dY·W, C (rows × n):
//   beta0         cblas_sgemm with beta = 0 (what a fresh output gets)
//   zero + beta1  our own memset of the panel, then beta = 1 (the same passes, for comparison)
//   beta1         beta = 1 onto C as it is (the floor: no zeroing pass; wrong sums, timing only)
// A kernel lab in the llm.c dev/ style, outside the mainline. Run: build/experiments/kernels/gemm_beta
// under the machine lock.
#include <cblas.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "experiments/kernels/lab_timer.h"

namespace {

// Best of 5 timings of f over at least 0.5 s in all.
double seconds(const std::function<void()>& f) { return lintra::lab::best_seconds(f, 0.5); }

struct Shape {
  const char* what;
  int64_t rows, n, k;  // C (rows × n) = A (rows × k) · B (k × n)
};

// C = A·B in panels of `panel` rows, each one cblas_sgemm call; mode 0 beta 0, 1 memset + beta 1,
// 2 beta 1 as C is.
void panels(const Shape& s, int64_t panel, int mode, const float* a, const float* b, float* c) {
  for (int64_t i0 = 0; i0 < s.rows; i0 += panel) {
    const int64_t m = std::min(panel, s.rows - i0);
    float* ci = c + i0 * s.n;
    if (mode == 1) std::memset(ci, 0, sizeof(float) * size_t(m * s.n));
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(m), int(s.n), int(s.k), 1.0f, a + i0 * s.k,
                int(s.k), b, int(s.n), mode == 0 ? 0.0f : 1.0f, ci, int(s.n));
  }
}

}  // namespace

int main() {
  openblas_set_num_threads(1);
  // The CIFAR-10 model's dX products (12,284 rows; d_model 256, d_ff 1024): the feed-forward's second
  // layer (C 12,284 × 1,024), its first and the attention's projections (C 12,284 × 256).
  const Shape shapes[] = {{"ffn2 dX", 12284, 1024, 256}, {"ffn1 dX", 12284, 256, 1024}, {"proj dX", 12284, 256, 256}};
  fmt::print("one thread, GFLOP/s (best of >= 5); C in panels of rows as core/cpu/matmul.cpp hands them out\n");
  fmt::print("{:<8} {:>6} {:>10} {:>13} {:>10} {:>14}\n", "shape", "panel", "beta0", "zero + beta1", "beta1",
             "beta0 / beta1");
  for (const Shape& s : shapes) {
    std::vector<float> a(size_t(s.rows * s.k), 0.5f), b(size_t(s.k * s.n), 0.25f), c(size_t(s.rows * s.n), 0.0f);
    const double flop = 2.0 * double(s.rows) * double(s.n) * double(s.k);
    for (int64_t panel : {int64_t(1536), int64_t(768), int64_t(384)}) {
      double t[3];
      for (int mode = 0; mode < 3; ++mode)
        t[mode] = seconds([&] { panels(s, panel, mode, a.data(), b.data(), c.data()); });
      fmt::print("{:<8} {:>6} {:>10.1f} {:>13.1f} {:>10.1f} {:>14.3f}\n", s.what, panel, flop / t[0] / 1e9,
                 flop / t[1] / 1e9, flop / t[2] / 1e9, t[2] / t[0]);
    }
  }
  return 0;
}
