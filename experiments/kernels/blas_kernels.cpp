// experiments/kernels/blas_kernels.cpp — which of OpenBLAS's kernel sets runs the model's products
// fastest on this CPU, and how oneDNN's float32 GEMM compares. OpenBLAS (DYNAMIC_ARCH) picks its
// kernels once, when it is loaded, from OPENBLAS_CORETYPE or the CPU; lintra's main sets that variable
// from the CPU (app/main.cpp). A process cannot switch kernels, so compare sets by running this lab
// once per set, e.g.
//   for c in Cooperlake SkylakeX Haswell; do OPENBLAS_CORETYPE=$c build/experiments/kernels/blas_kernels; done
// Every product runs on one thread, as lintra's matmul hands them out (core/cpu/matmul.cpp: panels of
// 1,536 rows of the CIFAR-10 layers' 12,288, slabs of 2,048 reduction steps for the weight gradients,
// and per-head products of the attention), then whole on two threads. Rows: GFLOP/s, best of 5 timings
// over at least 0.4 s, OpenBLAS and dnnl_sgemm alternated in one process. A kernel lab in the llm.c
// dev/ style, outside the mainline; run it under the machine lock.
#include <cblas.h>
#include <fmt/format.h>
#include <omp.h>

#ifdef LINTRA_WITH_DNNL
#include <oneapi/dnnl/dnnl.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "experiments/kernels/lab_timer.h"

extern "C" char* openblas_get_corename(void);

namespace {

double seconds(const std::function<void()>& f) { return lintra::lab::best_seconds(f, 0.4); }

// C (M × N) = op(A) · op(B), row-major; ta/tb: the operand is stored transposed.
struct Product {
  const char* name;
  bool ta, tb;
  int64_t M, N, K;
};

void run(const Product& p, int threads, std::vector<float>& a, std::vector<float>& b, std::vector<float>& c) {
  omp_set_num_threads(threads);
  openblas_set_num_threads(threads);
  const int64_t lda = p.ta ? p.M : p.K, ldb = p.tb ? p.K : p.N, ldc = p.N;
  const double gflop = 2.0 * double(p.M) * double(p.N) * double(p.K) * 1e-9;
  const double blas = seconds([&] {
    cblas_sgemm(CblasRowMajor, p.ta ? CblasTrans : CblasNoTrans, p.tb ? CblasTrans : CblasNoTrans, int(p.M),
                int(p.N), int(p.K), 1.0f, a.data(), int(lda), b.data(), int(ldb), 0.0f, c.data(), int(ldc));
  });
  std::string line = fmt::format("{:<26} {:>6} {:>6} {:>6} {:>3}  {:>8.1f}", p.name, p.M, p.N, p.K, threads,
                                 gflop / blas);
#ifdef LINTRA_WITH_DNNL
  const double dnnl = seconds([&] {
    dnnl_sgemm(p.ta ? 'T' : 'N', p.tb ? 'T' : 'N', p.M, p.N, p.K, 1.0f, a.data(), lda, b.data(), ldb, 0.0f,
               c.data(), ldc);
  });
  // The same product both ways must agree (a wrong layout could be fast for a bogus reason).
  std::vector<float> want(c.begin(), c.begin() + p.M * p.N);
  dnnl_sgemm(p.ta ? 'T' : 'N', p.tb ? 'T' : 'N', p.M, p.N, p.K, 1.0f, a.data(), lda, b.data(), ldb, 0.0f, c.data(),
             ldc);
  cblas_sgemm(CblasRowMajor, p.ta ? CblasTrans : CblasNoTrans, p.tb ? CblasTrans : CblasNoTrans, int(p.M), int(p.N),
              int(p.K), 1.0f, a.data(), int(lda), b.data(), int(ldb), 0.0f, want.data(), int(ldc));
  float diff = 0;
  for (int64_t i = 0; i < p.M * p.N; ++i) diff = std::max(diff, std::abs(c[size_t(i)] - want[size_t(i)]));
  line += fmt::format("  {:>8.1f}  {:>6.3f}  {:.1e}", gflop / dnnl, blas / dnnl, diff);
#endif
  fmt::print("{}\n", line);
}

}  // namespace

int main() {
  const std::vector<Product> panels = {
      {"qkv/out projection", false, false, 1536, 256, 256},
      {"ffn up", false, false, 1536, 1024, 256},
      {"ffn down", false, false, 1536, 256, 1024},
      {"projection dX", false, true, 1536, 256, 256},
      {"ffn up dX", false, true, 1536, 256, 1024},
      {"projection dW slab", true, false, 256, 256, 2048},
      {"ffn up dW slab", true, false, 256, 1024, 2048},
      {"ffn down dW slab", true, false, 1024, 256, 2048},
      {"head q·kᵀ 784", false, true, 784, 784, 32},
      {"head attn·v 784", false, false, 784, 32, 784},
      {"head 3072 × 32 × 32", false, false, 3072, 32, 32},
  };
  // Every per-head product of softmax attention (nn/attention/softmax_attention.cpp) at the paper's
  // MNIST (N = 783) and CIFAR-10 (N = 3,071) lengths, E = M = 32, forward and backward as autograd
  // issues them, and reformer's chunk products (C = 29 / 37 slots, windows W = 2C).
  std::vector<Product> heads;
  for (int64_t n : {783, 3071}) {
    heads.push_back({"softmax q·kᵀ, dO·vᵀ", false, true, n, n, 32});
    heads.push_back({"softmax a·v, dS·k", false, false, n, 32, n});
    heads.push_back({"softmax aᵀ·dO, dSᵀ·q", true, false, n, 32, n});
  }
  // Where the narrow-output advantage ends: N = 16 … 128 columns, K and M at the lengths above and a
  // row panel of them (matmul's schedule 3 cuts a CIFAR-10 head into panels of 384 rows).
  std::vector<Product> narrow;
  for (int64_t n : {16, 32, 64, 128})
    for (int64_t k : {64, 783, 3071})
      for (int64_t m : {384, 3071})
        for (bool ta : {false, true}) narrow.push_back({ta ? "narrow, a transposed" : "narrow", ta, false, m, n, k});
  for (int64_t n : {24, 30})
    for (bool tb : {false, true}) narrow.push_back({tb ? "narrow, b transposed" : "narrow", false, tb, 1536, n, 256});
  for (int64_t n : {32, 64}) narrow.push_back({"narrow, b transposed", false, true, 3071, n, 3071});
  // Tiny products: stateful softmax's generation step (1 query against t keys) and small batches.
  for (int64_t m : {1, 8})
    for (int64_t k : {16, 128, 783}) narrow.push_back({"tiny", false, false, m, 32, k});
  for (int64_t c : {29, 37}) {
    heads.push_back({"lsh q·kwinᵀ", false, true, c, 2 * c, 32});
    heads.push_back({"lsh a·vwin, dZ·kwin", false, false, c, 32, 2 * c});
    heads.push_back({"lsh aᵀ·dO, dZᵀ·qs", true, false, 2 * c, 32, c});
  }
  const std::vector<Product> whole = {
      {"ffn up (whole)", false, false, 12288, 1024, 256},
      {"projection (whole)", false, false, 12288, 256, 256},
  };
  std::vector<float> a(size_t(12288) * 1024), b(size_t(12288) * 1024), c(size_t(12288) * 1024);
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (float& x : a) x = u(gen);
  for (float& x : b) x = u(gen);
  fmt::print("OpenBLAS kernels: {}\n", openblas_get_corename());
  std::string head = fmt::format("{:<26} {:>6} {:>6} {:>6} {:>3}  {:>8}", "product", "M", "N", "K", "thr", "openblas");
#ifdef LINTRA_WITH_DNNL
  head += fmt::format("  {:>8}  {:>6}  {}", "onednn", "o/b", "max |diff|");
#endif
  fmt::print("{}\n", head);
  for (const Product& p : panels) run(p, 1, a, b, c);
  for (const Product& p : heads) run(p, 1, a, b, c);
  for (const Product& p : narrow) run(p, 1, a, b, c);
  for (const Product& p : whole) run(p, 2, a, b, c);
#ifdef LINTRA_WITH_DNNL
  // dnnl_sgemm called from inside a parallel region (matmul's panels and per-batch loops): it must run
  // on the calling thread alone, so two concurrent products take about as long as one on its own.
  {
    const Product p{"softmax a·v, dS·k", false, false, 3071, 32, 3071};
    omp_set_num_threads(2);
    std::vector<float> c2(c.size());
    const auto one = [&](std::vector<float>& out) {
      dnnl_sgemm('N', 'N', p.M, p.N, p.K, 1.0f, a.data(), p.K, b.data(), p.N, 0.0f, out.data(), p.N);
    };
    const double solo = seconds([&] { one(c); });
    const double pair = seconds([&] {
#pragma omp parallel num_threads(2)
      one(omp_get_thread_num() == 0 ? c : c2);
    });
    fmt::print("dnnl_sgemm {} × {} × {}: alone on 2 threads' ICV {:.2f} ms, two at once in a parallel region {:.2f} ms\n",
               p.M, p.N, p.K, solo * 1e3, pair * 1e3);
  }
#endif
}
