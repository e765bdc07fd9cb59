// experiments/kernels/causal_chunks.cpp — which library should run the chunk products of the causal
// linear product (core/cpu/causal_product.cpp, Note [chunked causal product])? A kernel lab in the
// llm.c dev/ style, outside the mainline: one (b, h) forward of N × (E, M) in chunks of C rows, three
// ways, validated against each other, then timed side by side on one thread with a 1024³ cblas_sgemm
// as the yardstick:
//   1. lintra's kernel (Highway micro-kernel, dynamic dispatch; triangles skipped);
//   2. libxsmm 1.17 JIT kernels for the same products (transposed chunk copied; full C×C scores
//      with the upper triangle zeroed, as libxsmm has no triangular product);
//   3. single-threaded cblas_sgemm for the same products (Kᵀ read with CblasTrans).
// Per chunk: scores = Q_c K_cᵀ (C×E·E×C), O_c = Q_c S + tril(scores) V_c (C×E·E×M + C×C·C×M),
// S += K_cᵀ V_c (E×C·C×M). Rates are in multiply-adds × 2 of what each version executes (the
// micro-kernel does fewer: it skips the zero triangles), so the wall time per call is the verdict.
//
// Run: build/experiments/kernels/causal_chunks [N E M [TARGET]] (defaults 960 32 64, the best target),
// under the machine lock. TARGET (SSE4, AVX2, …) forces Highway's target; give libxsmm the same ISA with
// LIBXSMM_TARGET (wsm = SSE4.2, hsw = AVX2, skx = AVX-512) in the environment.
#include <cblas.h>
#include <fmt/format.h>
#include <hwy/targets.h>
#include <libxsmm.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <vector>

#include "core/cpu/causal_chunk.h"
#include "core/kernels.h"
#include "core/ops.h"
#include "core/threading.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int C = int(lintra::kernels::cpu::causal::kChunk);  // as core/cpu/causal_product.cpp (48 until session 10)

double best_seconds(const std::function<void()>& f, double min_s = 1.0) {
  f();
  double best = 1e30, total = 0;
  for (int r = 0; r < 10000 && (r < 5 || total < min_s); ++r) {
    const auto t0 = Clock::now();
    f();
    const double t = std::chrono::duration<double>(Clock::now() - t0).count();
    best = std::min(best, t);
    total += t;
  }
  return best;
}

// Row-major c (m×n) = [c +] a (m×k, lda) · b (k×n, ldb), as a libxsmm column-major kernel on the
// transposes (cᵀ = bᵀ aᵀ): dispatched once per shape.
struct XsmmGemm {
  libxsmm_smmfunction f = nullptr;
  XsmmGemm(int m, int n, int k, int lda, int ldb, int ldc, float beta) {
    const float alpha = 1;
    const int flags = LIBXSMM_GEMM_FLAG_NONE, prefetch = LIBXSMM_PREFETCH_NONE;
    const libxsmm_blasint la = ldb, lb = lda, lc = ldc;
    f = libxsmm_smmdispatch(n, m, k, &la, &lb, &lc, &alpha, &beta, &flags, &prefetch);
    if (f == nullptr) {
      fmt::print("libxsmm: no kernel for {}x{}x{}\n", m, n, k);
      std::exit(1);
    }
  }
  void operator()(const float* a, const float* b, float* c) const { f(b, a, c); }
};

void zero_upper(float* s) {
  for (int i = 0; i < C; ++i)
    for (int j = i + 1; j < C; ++j) s[i * C + j] = 0;
}

// out (N×M) from q, k (N×E), v (N×M), N a multiple of C, libxsmm for every product.
void forward_xsmm(const float* q, const float* k, const float* v, float* out, int N, int E, int M) {
  static const XsmmGemm scores(C, C, E, E, C, C, 0), qs(C, M, E, E, M, M, 0), pv(C, M, C, C, M, M, 1),
      kv(E, M, C, C, M, M, 1);
  std::vector<float> S(size_t(E * M), 0.f), kt(size_t(E * C)), s(size_t(C * C));
  for (int t0 = 0; t0 < N; t0 += C) {
    const float *Q = q + t0 * E, *K = k + t0 * E, *V = v + t0 * M;
    for (int i = 0; i < C; ++i)
      for (int e = 0; e < E; ++e) kt[size_t(e * C + i)] = K[i * E + e];
    scores(Q, kt.data(), s.data());
    zero_upper(s.data());
    qs(Q, S.data(), out + t0 * M);
    pv(s.data(), V, out + t0 * M);
    kv(kt.data(), V, S.data());
  }
}

void forward_cblas(const float* q, const float* k, const float* v, float* out, int N, int E, int M) {
  std::vector<float> S(size_t(E * M), 0.f), s(size_t(C * C));
  for (int t0 = 0; t0 < N; t0 += C) {
    const float *Q = q + t0 * E, *K = k + t0 * E, *V = v + t0 * M;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, C, C, E, 1.f, Q, E, K, E, 0.f, s.data(), C);
    zero_upper(s.data());
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, C, M, E, 1.f, Q, E, S.data(), M, 0.f, out + t0 * M, M);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, C, M, C, 1.f, s.data(), C, V, M, 1.f, out + t0 * M, M);
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, E, M, C, 1.f, K, E, V, M, 1.f, S.data(), M);
  }
}

// The target Highway's dispatch picks: the best (lowest bit) of the supported compiled targets.
const char* best_target() {
  const int64_t t = hwy::SupportedTargets() & HWY_TARGETS;
  return hwy::TargetName(t & -t);
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, double(std::abs(a[i] - b[i])));
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace lintra;
  const int N = argc > 1 ? std::atoi(argv[1]) / C * C : 960, E = argc > 2 ? std::atoi(argv[2]) : 32,
            M = argc > 3 ? std::atoi(argv[3]) : 64;
  set_num_threads(1);
  if (argc > 4) {
    for (int64_t t : hwy::SupportedAndGeneratedTargets())
      if (std::string(hwy::TargetName(t)) == argv[4]) hwy::SetSupportedTargetsForTest(t);
  }
  libxsmm_init();
  Generator gen(5);
  Tensor q = Tensor::uniform({1, 1, N, E}, gen, 0, 1), k = Tensor::uniform({1, 1, N, E}, gen, 0, 1);
  Tensor v = Tensor::uniform({1, 1, N, M}, gen, -1, 1), out = Tensor::empty({1, 1, N, M});
  std::vector<float> o_xsmm(size_t(N * M)), o_blas(size_t(N * M));
  const float *qp = q.data<float>(), *kp = k.data<float>(), *vp = v.data<float>();
  auto lintra_fwd = [&] { kernels::on(out).causal_product_forward(q, k, v, out); };
  auto xsmm_fwd = [&] { forward_xsmm(qp, kp, vp, o_xsmm.data(), N, E, M); };
  auto blas_fwd = [&] { forward_cblas(qp, kp, vp, o_blas.data(), N, E, M); };
  lintra_fwd();
  xsmm_fwd();
  blas_fwd();
  const std::vector<float> o_lintra(out.data<float>(), out.data<float>() + N * M);
  fmt::print("N={} E={} M={} C={}, one thread, Highway target {}, libxsmm target {}; max |diff| vs lintra: "
             "libxsmm {:.2e}, cblas {:.2e}\n",
             N, E, M, C, best_target(),
             libxsmm_get_target_arch(), max_abs_diff(o_xsmm, o_lintra), max_abs_diff(o_blas, o_lintra));
  const int S = 1024;
  Tensor a = Tensor::uniform({S, S}, gen, -1, 1), b = Tensor::uniform({S, S}, gen, -1, 1), c = Tensor::empty({S, S});
  auto sgemm = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, S, S, S, 1.f, a.data<float>(), S, b.data<float>(), S, 0.f,
                c.data<float>(), S);
  };
  const double t_sgemm = std::min(best_seconds(sgemm), best_seconds(sgemm));  // the clock ramps up
  const double sgemm_rate = 2.0 * S * S * S / t_sgemm / 1e9;
  // Work executed by the library versions per chunk: C·C·E + C·E·M + C·C·M + E·C·M multiply-adds.
  const double full = 2.0 * (N / C) * (double(C) * C * E + 2.0 * C * E * M + double(C) * C * M);
  const double useful = 2.0 * 2.0 * N * double(E) * M;  // the bench's count: state update + read
  fmt::print("{:<34} {:>10} {:>14} {:>16} {:>10}\n", "version", "µs/call", "GFLOP/s exec", "GFLOP/s useful",
             "÷ sgemm");
  for (auto [name, f] : {std::pair<const char*, std::function<void()>>{"lintra (Highway micro-kernel)", lintra_fwd},
                         {"libxsmm 1.17 JIT", xsmm_fwd},
                         {"cblas_sgemm (OpenBLAS, 1 thread)", blas_fwd}}) {
    const double t = best_seconds(f);
    fmt::print("{:<34} {:>10.1f} {:>14.1f} {:>16.1f} {:>10.3f}\n", name, t * 1e6, full / t / 1e9, useful / t / 1e9,
               useful / t / 1e9 / sgemm_rate);
  }
  fmt::print("{:<34} {:>10} {:>14.1f}\n", "cblas_sgemm 1024^3 (1 thread)", "", sgemm_rate);
  // lintra's backward on the same head (for the forward : backward time ratio; 2.45× the multiply-adds).
  Tensor g = Tensor::uniform({1, 1, N, M}, gen, -1, 1), gq = Tensor::empty({1, 1, N, E}), gk = Tensor::empty({1, 1, N, E}),
         gv = Tensor::empty({1, 1, N, M});
  const double t_bwd = best_seconds([&] { kernels::on(gq).causal_product_backward(q, k, v, g, gq, gk, gv); });
  fmt::print("{:<34} {:>10.1f} {:>14} {:>16.1f} {:>10.3f}\n", "lintra backward", t_bwd * 1e6, "",
             2 * useful / t_bwd / 1e9, 2 * useful / t_bwd / 1e9 / sgemm_rate);
  return 0;
}
