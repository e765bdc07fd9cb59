// experiments/kernels/small_gemm_shapes.cpp — the efficiency of lintra's small-GEMM micro-kernel
// (core/cpu/small_gemm-inl.h) on each product shape of the causal linear product at E = 32, M = 64,
// C = cpu/causal_chunk.h's kChunk (as core/cpu/causal_product.cpp; 48 until session 10), one thread, operands in L1: GFLOP/s per shape against a
// 1024³ cblas_sgemm on one thread, so a slow shape shows itself. Compiled for the build's static target only (AVX2 with LINTRA_NATIVE on this machine).
//
// Run: build/experiments/kernels/small_gemm_shapes, under the machine lock.
#include <cblas.h>
#include <fmt/format.h>
#include <hwy/highway.h>

#include <chrono>
#include <functional>
#include <vector>

#include "core/cpu/causal_chunk.h"
#include "core/cpu/small_gemm-inl.h"
#include "core/threading.h"

namespace {

namespace cpu = lintra::kernels::cpu::HWY_NAMESPACE;
using cpu::Term;
using cpu::Tri;
using Clock = std::chrono::steady_clock;

double best_seconds(const std::function<void()>& f) {
  f();
  double best = 1e30, total = 0;
  for (int r = 0; r < 100000 && (r < 5 || total < 0.5); ++r) {
    const auto t0 = Clock::now();
    for (int i = 0; i < 100; ++i) f();
    const double t = std::chrono::duration<double>(Clock::now() - t0).count() / 100;
    best = std::min(best, t);
    total += t * 100;
  }
  return best;
}

}  // namespace

int main() {
  lintra::set_num_threads(1);
  const hwy::HWY_NAMESPACE::ScalableTag<float> d;
  const int64_t C = lintra::kernels::cpu::causal::kChunk, E = 32, M = 64;
  std::vector<float> a(64 * 64, 0.5f), b(64 * 64, 0.25f), c(64 * 64, 0.f), big(1024 * 1024, 0.1f),
      big2(1024 * 1024, 0.1f), big3(1024 * 1024);
  // The yardstick, timed before and after the shapes (the best of both: the clock ramps up).
  auto sgemm = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1024, 1024, 1024, 1.f, big.data(), 1024, big2.data(), 1024,
                0.f, big3.data(), 1024);
  };
  const double t_sgemm = std::min(best_seconds(sgemm), best_seconds(sgemm));
  const double peak = 2.0 * 1024 * 1024 * 1024 / t_sgemm / 1e9;
  struct Shape {
    const char* what;
    int64_t rows, cols, k;
    bool transposed_a, add;
    Tri tri;
  };
  const std::vector<Shape> shapes = {
      {"K R (GV), C x M, k = E", C, M, E, false, false, Tri::none},
      {"G S^T (GQ), C x E, k = M", C, E, M, false, false, Tri::none},
      {"K^T V (S +=), E x M, k = C", E, M, C, true, true, Tri::none},
      {"V^T K (S^T +=), M x E, k = C", M, E, C, true, true, Tri::none},
      {"tril(P) V, C x M, k <= C", C, M, C, false, false, Tri::lower},
      {"triu(P) G, C x M, k >= r", C, M, C, false, false, Tri::upper},
  };
  fmt::print("target {}, 1024^3 cblas_sgemm (1 thread) {:.1f} GFLOP/s\n", hwy::TargetName(HWY_TARGET), peak);
  for (const Shape& s : shapes) {
    const Term<float> x{a.data(), s.transposed_a ? 1 : s.k, s.transposed_a ? s.rows : 1, b.data(), s.cols};
    const bool tri = s.tri != Tri::none;
    auto run = [&] {
      if (tri) cpu::gemm(d, c.data(), s.cols, s.rows, s.cols, s.add, Term<float>{}, 0, x, s.k, s.tri);
      else cpu::gemm(d, c.data(), s.cols, s.rows, s.cols, s.add, x, s.k);
    };
    const double t = best_seconds(run);
    const double macs = tri ? double(s.rows) * s.cols * (s.k + 1) / 2 : double(s.rows) * s.cols * s.k;
    fmt::print("{:<32} {:>8.1f} ns {:>8.1f} GFLOP/s {:>6.2f} of sgemm\n", s.what, t * 1e9, 2 * macs / t / 1e9,
               2 * macs / t / 1e9 / peak);
  }
  for (bool lower : {true, false}) {
    auto run = [&] { cpu::masked_scores(d, c.data(), C, C, a.data(), E, b.data(), E, lower); };
    const double t = best_seconds(run);
    const double macs = double(C) * C * E / 2;
    fmt::print("{:<32} {:>8.1f} ns {:>8.1f} GFLOP/s {:>6.2f} of sgemm (triangle only counted)\n",
               lower ? "masked scores lower, k = E" : "masked scores upper, k = E", t * 1e9, 2 * macs / t / 1e9,
               2 * macs / t / 1e9 / peak);
  }
  return 0;
}
