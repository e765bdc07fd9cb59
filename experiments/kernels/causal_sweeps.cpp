// experiments/kernels/causal_sweeps.cpp — how close do the causal product's state sweeps
// (core/cpu/causal_product.cpp, Note [state sweeps]) come to the FMA peak, and where do they lose
// it? A kernel lab in the llm.c dev/ style, outside the mainline: the forward and the backward of
// kernels::causal_product_* timed apart at several (B, H, N, E, M), beside a 1024³ cblas_sgemm run
// in the same process, on the threads and SIMD target asked for.
//
// Rates count what each direction executes (forward 2·N·E·M multiply-adds per (b, h), backward 6:
// it recomputes the prefix state) and, as `lintra bench kernels` does, what the two need (6 in all),
// so "executed" shows the loop's efficiency and "counted" the kernel's. Shapes: the bench's
// (10, 10, 1000, 32, 64) streams 270 MB per call from memory; (1, 8, 1000, 32, 64) fits in L2/L3;
// (10, 8, 784, 32, 32) and (4, 8, 3072, 32, 32) are the paper's MNIST and CIFAR-10 layers.
//
// Run: build/experiments/kernels/causal_sweeps [TARGET [SEGMENT]] (AVX3, AVX2, SSE4, …; default the
// best; SEGMENT forces 32, 16 or 8 rows, default the kernels' choice), under the machine lock;
// OMP_NUM_THREADS sets the threads.
#include <cblas.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "core/cpu/causal_sweep.h"
#include "core/kernels.h"
#include "core/rng.h"
#include "core/simd.h"
#include "core/tensor.h"
#include "core/threading.h"

namespace {

using Clock = std::chrono::steady_clock;
using lintra::Tensor;

double best_seconds(const std::function<void()>& f, double min_s = 0.5) {
  f();
  double best = 1e30, total = 0;
  for (int r = 0; r < 100000 && (r < 3 || total < min_s); ++r) {
    const auto t0 = Clock::now();
    f();
    const double t = std::chrono::duration<double>(Clock::now() - t0).count();
    best = std::min(best, t);
    total += t;
  }
  return best;
}

double sgemm_gflops() {
  const int S = 1024;
  std::vector<float> a(size_t(S) * S, 0.5f), b(size_t(S) * S, 0.25f), c(size_t(S) * S);
  const double t = best_seconds(
      [&] { cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, S, S, S, 1.0f, a.data(), S, b.data(), S, 0.0f, c.data(), S); });
  return 2.0 * S * S * S / t / 1e9;
}

struct Shape {
  int64_t B, H, N, E, M;
};

void run(const Shape& s, double sgemm) {
  lintra::Generator gen(5);
  Tensor q = Tensor::uniform({s.B, s.H, s.N, s.E}, gen, 0, 1), k = Tensor::uniform({s.B, s.H, s.N, s.E}, gen, 0, 1);
  Tensor v = Tensor::uniform({s.B, s.H, s.N, s.M}, gen, -1, 1), g = Tensor::uniform({s.B, s.H, s.N, s.M}, gen, -1, 1);
  Tensor out = Tensor::empty({s.B, s.H, s.N, s.M}), gq = Tensor::empty({s.B, s.H, s.N, s.E}),
         gk = Tensor::empty({s.B, s.H, s.N, s.E}), gv = Tensor::empty({s.B, s.H, s.N, s.M});
  const double t_fwd = best_seconds([&] { lintra::kernels::on(out).causal_product_forward(q, k, v, out); });
  const double t_bwd = best_seconds([&] { lintra::kernels::on(gq).causal_product_backward(q, k, v, g, gq, gk, gv); });
  const double unit = 2.0 * double(s.B * s.H * s.N) * double(s.E * s.M) / 1e9;  // GFLOP per N·E·M
  const double fwd = 2 * unit / t_fwd, bwd = 6 * unit / t_bwd, counted = 6 * unit / (t_fwd + t_bwd);
  fmt::print("{:>4}x{:<3}x{:>5}x{:>3}x{:<3}  fwd {:7.1f}  bwd {:7.1f}  executed {:6.1f} GFLOP/s ({:.2f} of sgemm)  "
             "counted {:6.1f} ({:.2f})\n",
             s.B, s.H, s.N, s.E, s.M, fwd, bwd, 8 * unit / (t_fwd + t_bwd), 8 * unit / (t_fwd + t_bwd) / sgemm,
             counted, counted / sgemm);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) lintra::force_simd_target(argv[1]);  // throws on a target this CPU does not run
  if (argc > 2) lintra::kernels::cpu::causal::force_segment_rows(std::atoll(argv[2]));  // 32, 16 or 8
  const double sgemm = sgemm_gflops();
  namespace causal = lintra::kernels::cpu::causal;
  const int64_t forced = causal::forced_segment_rows();
  fmt::print("causal_sweeps — {} threads, SIMD target {}, segments {}, cblas_sgemm 1024³ {:.1f} GFLOP/s\n",
             lintra::num_threads(), lintra::simd_target(),
             forced > 0 ? fmt::format("of {} rows (forced)", forced)
                        : fmt::format("chosen from L1d {} KiB", causal::l1d_bytes() / 1024),
             sgemm);
  for (const Shape& s : {Shape{10, 10, 1000, 32, 64}, Shape{1, 8, 1000, 32, 64}, Shape{10, 8, 784, 32, 32},
                         Shape{4, 8, 3072, 32, 32}})
    run(s, sgemm);
  fmt::print("sgemm again: {:.1f} GFLOP/s\n", sgemm_gflops());
  return 0;
}
