// cpu/matmul.cpp — (batched, broadcast) matrix products through OpenBLAS sgemm/dgemm.
//
// out (…, M, N) = a (…, M, K) · b (…, K, N), or out += a·b (accumulate: BLAS's beta = 1, so that a
// bias or residual written into out beforehand costs no pass of its own). Cost O(batch·M·N·K).
// Each operand's last two dims are passed to BLAS as they are when one of their strides is 1
// (row-major, or column-major = a transposed view: CblasTrans), so transposes never copy; other
// layouts are copied to contiguous first. Three schedules:
//   1. b has no batch (weights) and a's batch dims fold into its rows: one GEMM (batch·M, K)·(K, N);
//   2. many small products: OpenMP over the batch (dynamically scheduled), each GEMM single-threaded
//      (OpenBLAS' OpenMP build runs serially inside a parallel region) — two threads on one small GEMM
//      lose (DESIGN.md §2.1);
//      below 2^18 multiply-adds in total the whole batch runs serially (a parallel region costs more);
//   3. otherwise a loop of GEMMs, each using every thread.
// A GEMM that uses every thread (schedules 1 and 3) is cut into panels along its longer output side,
// each a single-threaded GEMM handed to the OpenMP threads one at a time (gemm_panels), rather than
// split once per thread inside OpenBLAS: when another process holds one of the cores, the slowed thread
// computes fewer panels instead of holding the others at the end. Each panel repacks the other
// operand, about 1/panel of the panel's work (panels of at least 64 rows or columns: under 2%).
// Every element is the same K-long sum however the panels fall, so results do not depend on the schedule.
// A long reduction onto a small output (a weight gradient) is cut into fixed slabs of K instead
// (gemm_reduction_slabs): the same sums for any thread count.
// With MatmulPrecision::bf16 (core/matmul_precision.h) a float32 GEMM of at least 2^21 multiply-adds
// made outside a parallel region goes to oneDNN's bf16 matmul instead (cpu/matmul_bf16.h), whole.
//
// Narrow float32 products go to oneDNN's float32 GEMM (dnnl_sgemm) instead of OpenBLAS, each call on
// the calling thread alone as OpenBLAS's: those with 30 ≤ N ≤ 128 output columns and K ≥ 24 — the
// per-head products of softmax and reformer attention whose output is a head's 32 columns (a·v and
// the backward's dS·k, aᵀ·dO, dSᵀ·q), and the mixture-of-logistics head (N = 30) — except a
// transposed b with fewer than 64 rows (reformer's chunk logits, 29 × 58 × 32: 0.73–0.80 there).
// OpenBLAS 0.3.21 runs these at 55–95 GFLOP/s a Zen 4 core where oneDNN runs 94–116: 1.2–2.0× on
// AVX-512 (softmax's a·v at N = 3,071 1.48–1.64×, aᵀ·dO 1.96–1.99×), 1.07–1.26× on its AVX2 code
// (ONEDNN_MAX_CPU_ISA=AVX2); level or slower on wider outputs and 16-long sums
// (build/experiments/kernels/blas_kernels; experiments/kernels/README.md, session 29). Each element
// is still one K-long sum whatever the panel, so the results do not depend on the thread count.
// On by default; LINTRA_ONEDNN_SGEMM=0 (read once) sends every float32 product to OpenBLAS, for A/B
// runs. oneDNN 2.6's kernels point rsp into the heap while they run, so a signal handled meanwhile
// corrupts the heap (a SIGINT during training crashed 1 run in 40 a step later): each thread gets an
// alternate signal stack before its first call (cpu/signal_stack.h), and lintra's handlers use it.
#include <cblas.h>
#include <omp.h>

#ifdef LINTRA_WITH_DNNL
#include <dnnl.h>
#include <dnnl_debug.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "core/cpu/team_loop.h"
#include "core/kernels.h"
#include "core/matmul_precision.h"
#ifdef LINTRA_WITH_DNNL
#include "core/cpu/matmul_bf16.h"
#include "core/cpu/signal_stack.h"
#endif

namespace lintra::kernels::cpu {

namespace {

struct MatLayout {
  bool ok = false;
  bool trans = false;
  int64_t ld = 0;
};

// How BLAS can read a rows×cols matrix with strides (rs, cs), if at all.
MatLayout blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  if ((cs == 1 || cols <= 1) && (rows <= 1 || rs >= std::max<int64_t>(cols, 1))) {
    return {true, false, rows <= 1 ? std::max<int64_t>(cols, 1) : rs};
  }
  if ((rs == 1 || rows <= 1) && (cols <= 1 || cs >= std::max<int64_t>(rows, 1))) {
    return {true, true, cols <= 1 ? std::max<int64_t>(rows, 1) : cs};
  }
  return {};
}

MatLayout layout_of(const Tensor& t) {
  int64_t n = t.dim();
  return blas_layout(t.shape()[size_t(n - 2)], t.shape()[size_t(n - 1)], t.strides()[size_t(n - 2)],
                     t.strides()[size_t(n - 1)]);
}

#ifdef LINTRA_WITH_DNNL
// Whether oneDNN's float32 GEMM runs this product faster than OpenBLAS (the header's rule).
bool narrow_for_onednn(bool tb, int64_t M, int64_t N, int64_t K) {
  static const bool enabled = [] {
    const char* e = std::getenv("LINTRA_ONEDNN_SGEMM");
    return e == nullptr || std::string_view(e) != "0";
  }();
  return enabled && N >= 30 && N <= 128 && K >= 24 && !(tb && M < 64);
}

// c = op(a)·op(b) + beta·c through dnnl_sgemm (row-major, as cblas), on this thread alone: inside a
// parallel region oneDNN runs serially by itself; outside one the thread count is 1 for the call. The
// thread first gets an alternate signal stack (cpu/signal_stack.h says why).
void sgemm_onednn(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const float* a, int64_t lda, const float* b,
                  int64_t ldb, float* c, int64_t ldc, float beta) {
  ensure_alternate_signal_stack();
  const int outer = omp_in_parallel() ? 0 : omp_get_max_threads();
  if (outer > 1) omp_set_num_threads(1);
  const dnnl_status_t status = dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K, 1.0f, a, lda, b, ldb, beta, c, ldc);
  if (outer > 1) omp_set_num_threads(outer);
  LINTRA_CHECK(status == dnnl_success, "matmul (oneDNN sgemm) of {}×{} by {}×{}: {}", M, K, K, N,
               dnnl_status2str(status));
}
#endif

// c = op(a)·op(b) + beta·c, beta 0 or 1.
template <typename T>
void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const T* a, int64_t lda, const T* b, int64_t ldb, T* c,
          int64_t ldc, T beta) {
#ifdef LINTRA_WITH_DNNL
  if constexpr (std::is_same_v<T, float>) {
    if (narrow_for_onednn(tb, M, N, K)) {
      sgemm_onednn(ta, tb, M, N, K, a, lda, b, ldb, c, ldc, beta);
      return;
    }
  }
#endif
  auto TA = ta ? CblasTrans : CblasNoTrans;
  auto TB = tb ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, TA, TB, int(M), int(N), int(K), 1.0f, a, int(lda), b, int(ldb), beta, c, int(ldc));
  } else {
    cblas_dgemm(CblasRowMajor, TA, TB, int(M), int(N), int(K), 1.0, a, int(lda), b, int(ldb), beta, c, int(ldc));
  }
}

// A long reduction onto a small output — a weight gradient, (rows × in)ᵀ·(rows × out) with K = B·N
// rows — is cut along K instead: panels of the output would each repack the whole K-long other
// operand. Slabs of kSlab reduction steps, one single-threaded GEMM each (the first into c, with the
// call's beta, the others into partials from the allocator's cache), dynamically scheduled, then c +=
// the partials in slab order. The slabs depend on K alone and are used on one thread too, so the result does not depend on
// the thread count. On the 2-core Zen 4 the MNIST model's three weight-gradient shapes (256 × 256,
// 256 × 1024, 1024 × 256, K = 7,840) ran 1.06–1.30× faster than output panels, 15 of 15 alternated
// pairs (experiments/kernels/README.md, session 10).
constexpr int64_t kSlab = 2048;

bool splits_reduction(int64_t M, int64_t N, int64_t K) { return K >= 2 * kSlab && K >= 4 * std::max(M, N); }

template <typename T>
void gemm_reduction_slabs(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const T* a, int64_t lda, const T* b,
                          int64_t ldb, T* c, int64_t ldc, T beta) {
  const int64_t slabs = (K + kSlab - 1) / kSlab;
  Tensor partials = Tensor::empty({slabs - 1, M, N}, dtype_of<T>::value);
  T* p = partials.data<T>();
  team_for(slabs, true, [&](int64_t s) {
    const int64_t k0 = s * kSlab, n = std::min(K, k0 + kSlab) - k0;
    const T* as = a + (ta ? k0 * lda : k0);  // columns k0 … of op(a)
    const T* bs = b + (tb ? k0 : k0 * ldb);  // rows k0 … of op(b)
    if (s == 0) gemm<T>(ta, tb, M, N, n, as, lda, bs, ldb, c, ldc, beta);
    else gemm<T>(ta, tb, M, N, n, as, lda, bs, ldb, p + (s - 1) * M * N, N, T(0));
  });
  const int64_t rows_per_block = std::max<int64_t>(1, (int64_t(1) << 14) / std::max<int64_t>(1, N));
  team_for((M + rows_per_block - 1) / rows_per_block, true, [&](int64_t blk) {
    for (int64_t i = blk * rows_per_block; i < std::min(M, (blk + 1) * rows_per_block); ++i) {
      T* ci = c + i * ldc;
      for (int64_t s = 1; s < slabs; ++s) {
        const T* pi = p + ((s - 1) * M + i) * N;
#pragma omp simd
        for (int64_t j = 0; j < N; ++j) ci[j] += pi[j];
      }
    }
  });
}

// c (M × N) = op(a)·op(b) on every thread: panels of rows of c (M ≥ N) or of columns, about four per
// thread and at least 64 wide, dynamically scheduled, or slabs of a long reduction (above); small
// products (under 2^21 multiply-adds) or one thread: one call.
template <typename T>
void gemm_panels(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const T* a, int64_t lda, const T* b, int64_t ldb,
                 T* c, int64_t ldc, T beta) {
  const int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  const bool small = double(M) * double(N) * double(K) < double(1 << 21);
#ifdef LINTRA_WITH_DNNL
  if constexpr (std::is_same_v<T, float>) {
    if (!small && !omp_in_parallel() && matmul_precision() == MatmulPrecision::bf16) {
      gemm_bf16(ta, tb, M, N, K, a, lda, b, ldb, c, ldc, beta);
      return;
    }
  }
#endif
  if (!small && splits_reduction(M, N, K)) {  // whatever the thread count: the slabs fix the sums
    gemm_reduction_slabs<T>(ta, tb, M, N, K, a, lda, b, ldb, c, ldc, beta);
    return;
  }
  if (threads == 1 || small || std::max(M, N) < 128) {
    gemm<T>(ta, tb, M, N, K, a, lda, b, ldb, c, ldc, beta);
    return;
  }
  const bool by_rows = M >= N;
  const int64_t side = by_rows ? M : N;
  const int64_t panel = std::max<int64_t>(64, (side + 4 * threads - 1) / (4 * threads) + 15) / 16 * 16;
  const int64_t panels = (side + panel - 1) / panel;
  team_for(panels, true, [&](int64_t p) {
    const int64_t i0 = p * panel, n = std::min(side, i0 + panel) - i0;
    if (by_rows) {  // rows i0 … of op(a): a's rows (a row-major) or columns (a transposed)
      gemm<T>(ta, tb, n, N, K, a + (ta ? i0 : i0 * lda), lda, b, ldb, c + i0 * ldc, ldc, beta);
    } else {  // columns i0 … of op(b): b's columns (row-major) or rows (transposed)
      gemm<T>(ta, tb, M, n, K, a, lda, b + (tb ? i0 * ldb : i0), ldb, c + i0, ldc, beta);
    }
  });
}

template <typename T>
void matmul_typed(Tensor a, Tensor b, Tensor& out, bool accumulate) {
  MatLayout la = layout_of(a), lb = layout_of(b);
  if (!la.ok) {
    a = a.contiguous();
    la = layout_of(a);
  }
  if (!lb.ok) {
    b = b.contiguous();
    lb = layout_of(b);
  }
  const int64_t nd = out.dim();
  const int64_t M = out.shape()[size_t(nd - 2)], N = out.shape()[size_t(nd - 1)];
  const int64_t K = a.shape()[size_t(a.dim() - 1)];
  T* c = out.data<T>();
  if (out.numel() == 0) return;
  if (K == 0) {  // an empty sum
    if (!accumulate) std::fill(c, c + out.numel(), T(0));
    return;
  }
  const T beta = accumulate ? T(1) : T(0);
  const Shape batch(out.shape().begin(), out.shape().end() - 2);
  const int64_t nbatch = numel_of(batch);
  const Shape a_batch(a.shape().begin(), a.shape().end() - 2), b_batch(b.shape().begin(), b.shape().end() - 2);
  const Strides as = broadcast_strides(a_batch, Strides(a.strides().begin(), a.strides().end() - 2), batch);
  const Strides bs = broadcast_strides(b_batch, Strides(b.strides().begin(), b.strides().end() - 2), batch);
  const T* ap = a.data<T>();
  const T* bp = b.data<T>();

  // Schedule 1: fold a's batch into rows.
  bool b_shared = true;
  for (int64_t s : bs) b_shared = b_shared && s == 0;
  if (b_shared && !la.trans && nbatch > 1) {
    bool folds = true;
    int64_t expect = M * la.ld;
    for (int64_t d = int64_t(batch.size()) - 1; d >= 0 && folds; --d) {
      if (batch[size_t(d)] == 1) continue;
      folds = as[size_t(d)] == expect;
      expect *= batch[size_t(d)];
    }
    if (folds) {
      gemm_panels<T>(false, lb.trans, nbatch * M, N, K, ap, la.ld, bp, lb.ld, c, N, beta);
      return;
    }
  }

  auto offsets = [&](int64_t i, int64_t& ao, int64_t& bo) {
    ao = 0;
    bo = 0;
    for (int64_t d = int64_t(batch.size()) - 1; d >= 0; --d) {
      int64_t idx = i % batch[size_t(d)];
      i /= batch[size_t(d)];
      ao += idx * as[size_t(d)];
      bo += idx * bs[size_t(d)];
    }
  };
  // OpenMP over the batch needs enough work in total to pay for waking the other threads (tens of µs
  // each time on a shared VM): batch-1 generation issues thousands of (8 heads × 1 × 32 · 32 × 32)
  // products per image, each far cheaper serial than a parallel region.
  const double flops = double(M) * double(N) * double(K);
  const bool per_batch_parallel = nbatch >= 2 && flops <= double(1 << 26) && double(nbatch) * flops >= double(1 << 18);
  if (per_batch_parallel) {
    team_for(nbatch, true, [&](int64_t i) {
      int64_t ao, bo;
      offsets(i, ao, bo);
      gemm<T>(la.trans, lb.trans, M, N, K, ap + ao, la.ld, bp + bo, lb.ld, c + i * M * N, N, beta);
    });
    return;
  }
  for (int64_t i = 0; i < nbatch; ++i) {
    int64_t ao, bo;
    offsets(i, ao, bo);
    gemm_panels<T>(la.trans, lb.trans, M, N, K, ap + ao, la.ld, bp + bo, lb.ld, c + i * M * N, N, beta);
  }
}

}  // namespace

void matmul(const Tensor& a, const Tensor& b, Tensor& out, bool accumulate) {
  dispatch_float(out.dtype(), "matmul", [&]<typename scalar_t>() { matmul_typed<scalar_t>(a, b, out, accumulate); });
}

}  // namespace lintra::kernels::cpu
