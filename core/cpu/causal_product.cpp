// cpu/causal_product.cpp — the fused causal linear product (the numerator of causal linear
// attention, PAPER.md §3) and its constant-memory backward (Algorithm 1), blocked into chunks.
//
//   out_i = Σ_{j≤i} (q_i·k_j) v_j = S_iᵀ q_i,          S_i = Σ_{j≤i} k_j v_jᵀ   (E × M)
//   gq_i  = S_i g_i                                     (forward prefix)
//   gk_i  = R_i v_i,  gv_i = R_iᵀ k_i,                  R_i = Σ_{j≥i} q_j g_jᵀ   (reverse suffix)
// for q, k (B, H, N, E), v, g (B, H, N, M). Time O(B·H·N·E·M); scratch O(E·M + C·(C + E + M)) per
// thread, plus the backward's kept scores (N·C, below) up to 1 MiB: nothing of size N×N or N×E×M.
//
// Note [chunked causal product]
// The paper's loop (a rank-1 update of S, then a matrix-vector read, per time step) streams the
// whole E×M state through the load/store units twice per step and runs at a small fraction of the
// FMA peak. Splitting N into chunks of C rows turns every step into small matrix products:
//   forward    O_c  = Q_c S + tril(Q_c K_cᵀ) V_c,            then S += K_cᵀ V_c
//   backward 1 GQ_c = G_c Sᵀ + tril(G_c V_cᵀ) K_c,           then Sᵀ += V_cᵀ K_c      (c ascending)
//   backward 2 GV_c = K_c R + triu(K_c Q_cᵀ) G_c,
//              GK_c = V_c Rᵀ + triu(V_c G_cᵀ) Q_c,           then R += Q_cᵀ G_c       (c descending)
// where S and R are the states before the chunk (tril/triu keep the diagonal). triu(V_c G_cᵀ) is
// the transpose of pass 1's tril(G_c V_cᵀ): pass 1 keeps those C×C blocks (N·C elements per thread)
// and pass 2 reads them transposed, unless they would exceed 1 MiB (N > 8192 in float32 with
// C = 32), in which case pass 2 recomputes them and memory stays bounded for any N. Per row this costs E·M per state
// read or update (7 in all, as Algorithm 1's forward + backward: the backward recomputes the prefix
// state) plus about C·(E+M)/2 per triangular product pair (3.5 pairs), so C trades the triangle's
// cost against per-chunk overhead (C = 32: cpu/causal_chunk.h; experiments/kernels/README.md).
//
// Every product runs on the register-blocked micro-kernel of cpu/small_gemm-inl.h and every
// transposed copy on cpu/transpose-inl.h, both written once over Highway and compiled for each x86
// target (SSSE3, SSE4, AVX2, AVX-512; scalar as the fallback); HWY_DYNAMIC_DISPATCH picks the best
// one the CPU has, per (b, h) task. The left operand of a product is addressed by two strides, so
// transposed reads (K_cᵀ V_c, the kept scores) need no copy; the right operand is row-major, so each
// score product reads a transposed copy of one chunk (Kᵀ in the forward, Vᵀ and Qᵀ in the backward),
// and pass 2 keeps Rᵀ as a transposed copy of R. The chunk products were measured against libxsmm
// 1.17's JIT kernels and single-threaded cblas_sgemm for the same products (one head's forward, N =
// 960, E = 32, M = 64, one thread, AVX2: this micro-kernel 157 µs, libxsmm 169 µs, cblas_sgemm 249 µs;
// experiments/kernels/README.md): at these sizes the libraries pay call overhead, compute the zero
// triangles and need copies for the transposed operands. The states are small (E×M) and stay in
// L1/L2; each (b, h) pair is one task (OpenMP over B·H, dynamic schedule, scratch per thread), and
// the next chunk's rows are prefetched while a chunk computes.
//
// Memory layout: chunk rows are read in place when the last dim is contiguous and its width is a
// multiple of 16 (any row stride, e.g. a permuted (B, N, H, E) view); otherwise — and for the last,
// partial chunk — they are copied into zero-padded scratch (width rounded up to 16), so any
// strides work. Outputs are contiguous (kernels.h) and written in place when their width is a
// multiple of 16. Accumulation is in the input dtype, in a fixed order (results do not depend on
// the thread count, and differ between targets only by the order of float rounding).

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/cpu/causal_product.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "core/cpu/causal_chunk.h"
#include "core/cpu/small_gemm-inl.h"
#include "core/cpu/transpose-inl.h"

// --- target-independent parts (compiled once) ------------------------------------------------------
#ifndef LINTRA_CORE_CPU_CAUSAL_PRODUCT_ONCE_
#define LINTRA_CORE_CPU_CAUSAL_PRODUCT_ONCE_

#include <algorithm>
#include <vector>

#include "core/kernels.h"

namespace lintra::kernels::cpu::causal {

using small_gemm::kPad;
using small_gemm::round_up;

static_assert(kChunk % kPad == 0);  // kChunk: C, rows per chunk (cpu/causal_chunk.h)

// One (b, h) slice of a (B, H, N, X) tensor: element (i, x) at p[i·rs + x·cs].
template <typename T> struct Slice {
  const T* p;
  int64_t rs, cs, X;
};

template <typename T> Slice<T> slice_of(const Tensor& t, int64_t b, int64_t h) {
  return {t.data<T>() + b * t.stride(0) + h * t.stride(1), t.stride(2), t.stride(3), t.size(3)};
}

// What one (b, h) task reads and writes: the forward fills out, the backward gq, gk, gv.
template <typename T> struct Head {
  Slice<T> q, k, v, g;
  T *out, *gq, *gk, *gv;
  int64_t N;
};

// A chunk of C rows [t0, t0 + n) as a row-major operand with row stride ld and width round_up(X, kPad):
// read in place when possible, else copied into buf (C × Xp) with zero padding (rows n…C−1 too).
template <typename T> struct ChunkView {
  const T* p;
  int64_t ld;
};

template <typename T> ChunkView<T> chunk_view(const Slice<T>& s, int64_t t0, int64_t n, T* buf) {
  const int64_t Xp = round_up(s.X, kPad);
  if (n == kChunk && s.cs == 1 && s.X == Xp) return {s.p + t0 * s.rs, s.rs};
  for (int64_t i = 0; i < n; ++i) {
    const T* src = s.p + (t0 + i) * s.rs;
    T* d = buf + i * Xp;
    if (s.cs == 1) {
      std::copy(src, src + s.X, d);
    } else {
      for (int64_t x = 0; x < s.X; ++x) d[x] = src[x * s.cs];
    }
    std::fill(d + s.X, d + Xp, T(0));
  }
  std::fill(buf + n * Xp, buf + kChunk * Xp, T(0));
  return {buf, Xp};
}

// Asks for rows [t0, t0 + kChunk) ∩ [0, N) of s to be brought into L2: the next chunk's inputs are
// fetched while this chunk computes (in place they come from L3 or memory, and the backward's second
// pass walks them backwards); into L2 rather than L1, which the chunk being computed fills.
template <typename T> void prefetch_chunk(const Slice<T>& s, int64_t t0, int64_t N) {
  if (t0 < 0 || t0 >= N) return;
  const int64_t n = std::min(kChunk, N - t0), bytes = ((s.X - 1) * s.cs + 1) * int64_t(sizeof(T));
  for (int64_t i = 0; i < n; ++i) {
    const char* row = reinterpret_cast<const char*>(s.p + (t0 + i) * s.rs);
    for (int64_t b = 0; b < bytes; b += 64) __builtin_prefetch(row + b, 0, 2);  // into L2, not L1
  }
}

// Where a chunk of a contiguous (N, X) output is computed: in place, or in buf and copied by finish().
template <typename T> struct OutChunk {
  T* p;
  int64_t ld;
  bool in_place;
};

template <typename T> OutChunk<T> out_chunk(T* out, int64_t X, int64_t t0, int64_t n, T* buf) {
  if (n == kChunk && X % kPad == 0) return {out + t0 * X, X, true};
  return {buf, round_up(X, kPad), false};
}

template <typename T> void finish(const OutChunk<T>& o, T* out, int64_t X, int64_t t0, int64_t n) {
  if (o.in_place) return;
  for (int64_t i = 0; i < n; ++i) std::copy(o.p + i * o.ld, o.p + i * o.ld + X, out + (t0 + i) * X);
}

// Per-thread scratch, carved into 64-byte aligned arrays. The buffer is thread_local and only grows,
// so repeated calls neither allocate nor fault in fresh pages (OpenMP keeps its threads).
class Scratch {
 public:
  explicit Scratch(size_t bytes) {
    struct alignas(64) Line {
      char bytes[64];
    };
    thread_local std::vector<Line> buffer;
    const size_t n = bytes / sizeof(Line) + 1;
    if (buffer.size() < n) buffer.resize(n);
    base_ = reinterpret_cast<char*>(buffer.data());
  }
  template <typename T> T* take(int64_t n) {
    T* p = reinterpret_cast<T*>(base_ + used_);
    used_ += size_t(round_up(n * int64_t(sizeof(T)), 64));
    return p;
  }
  void reset() { used_ = 0; }

 private:
  char* base_ = nullptr;
  size_t used_ = 0;
};

// The backward keeps every chunk's tril(G_c V_cᵀ) from pass 1 for pass 2 (which needs its transpose)
// when that takes at most kMaxKeptScoreBytes per thread (cpu/causal_chunk.h) — N·C elements, i.e.
// N ≤ 8192 in float32 — and recomputes it otherwise, so that memory stays bounded for any N.
template <typename T> bool keep_scores(int64_t N) {
  return (N + kChunk - 1) / kChunk * kChunk * kChunk * int64_t(sizeof(T)) <= kMaxKeptScoreBytes;
}

// Upper bound of the bytes one (b, h) task takes from Scratch (the backward's layout is the larger).
template <typename T> size_t scratch_bytes(int64_t N, int64_t E, int64_t M) {
  const int64_t C = kChunk, Ep = round_up(E, kPad), Mp = round_up(M, kPad);
  int64_t elems = 4 * C * (Ep + Mp) + C * C + 2 * C * std::max(Ep, Mp) + 2 * Ep * Mp;
  if (keep_scores<T>(N)) elems += (N + C - 1) / C * C * C;
  return size_t(elems) * sizeof(T) + 16 * 64;
}

}  // namespace lintra::kernels::cpu::causal

#endif  // LINTRA_CORE_CPU_CAUSAL_PRODUCT_ONCE_

// --- per-target parts ------------------------------------------------------------------------------
HWY_BEFORE_NAMESPACE();
namespace lintra::kernels::cpu::HWY_NAMESPACE {
namespace {

using namespace causal;  // NOLINT: the shared parts above

template <typename T> void forward_head(const Head<T>& h, Scratch& scratch) {
  const hn::ScalableTag<T> d;
  const int64_t C = kChunk, N = h.N, E = h.q.X, M = h.v.X, Ep = round_up(E, kPad), Mp = round_up(M, kPad);
  scratch.reset();
  T* qbuf = scratch.take<T>(C * Ep);
  T* kbuf = scratch.take<T>(C * Ep);
  T* vbuf = scratch.take<T>(C * Mp);
  T* obuf = scratch.take<T>(C * Mp);
  T* kt = scratch.take<T>(Ep * C);
  T* scores = scratch.take<T>(C * C);
  T* S = scratch.take<T>(Ep * Mp);  // Σ k_j v_jᵀ over the chunks before this one
  std::fill(S, S + Ep * Mp, T(0));
  for (int64_t t0 = 0; t0 < N; t0 += C) {
    const int64_t n = std::min(C, N - t0), rows = n;
    const ChunkView<T> Q = chunk_view(h.q, t0, n, qbuf), K = chunk_view(h.k, t0, n, kbuf),
                       V = chunk_view(h.v, t0, n, vbuf);
    const OutChunk<T> O = out_chunk(h.out, M, t0, n, obuf);
    for (const Slice<T>* x : {&h.q, &h.k, &h.v}) prefetch_chunk(*x, t0 + C, N);
    transpose(d, K.p, K.ld, C, Ep, kt, C);
    masked_scores(d, scores, C, rows, Q.p, Q.ld, kt, Ep, /*lower=*/true);  // q_i·k_j, j ≤ i
    gemm(d, O.p, O.ld, rows, Mp, false, Term<T>{Q.p, Q.ld, 1, S, Mp}, Ep, Term<T>{scores, C, 1, V.p, V.ld}, n,
         Tri::lower);
    gemm(d, S, Mp, Ep, Mp, true, Term<T>{K.p, 1, K.ld, V.p, V.ld}, n);  // S += K_cᵀ V_c
    finish(O, h.out, M, t0, n);
  }
}

// Pass 1 of the backward (chunks ascending): gq_i = S_i g_i. Keeps tril(G_c V_cᵀ) in `kept` if not null.
template <typename T>
void backward_prefix(const Head<T>& h, T* gbuf, T* vbuf, T* kbuf, T* xt, T* scores, T* obuf, T* state_t, T* kept) {
  const hn::ScalableTag<T> d;
  const int64_t C = kChunk, N = h.N, E = h.q.X, Ep = round_up(E, kPad), Mp = round_up(h.v.X, kPad);
  std::fill(state_t, state_t + Ep * Mp, T(0));  // Sᵀ (Mp × Ep)
  for (int64_t t0 = 0; t0 < N; t0 += C) {
    const int64_t n = std::min(C, N - t0), rows = n;
    const ChunkView<T> G = chunk_view(h.g, t0, n, gbuf), V = chunk_view(h.v, t0, n, vbuf),
                       K = chunk_view(h.k, t0, n, kbuf);
    const OutChunk<T> O = out_chunk(h.gq, E, t0, n, obuf);
    for (const Slice<T>* x : {&h.g, &h.v, &h.k}) prefetch_chunk(*x, t0 + C, N);
    T* p = kept != nullptr ? kept + t0 * C : scores;
    transpose(d, V.p, V.ld, C, Mp, xt, C);
    masked_scores(d, p, C, rows, G.p, G.ld, xt, Mp, /*lower=*/true);  // g_i·v_j, j ≤ i
    gemm(d, O.p, O.ld, rows, Ep, false, Term<T>{G.p, G.ld, 1, state_t, Ep}, Mp, Term<T>{p, C, 1, K.p, K.ld}, n,
         Tri::lower);
    gemm(d, state_t, Ep, Mp, Ep, true, Term<T>{V.p, 1, V.ld, K.p, K.ld}, n);  // Sᵀ += V_cᵀ K_c
    finish(O, h.gq, E, t0, n);
  }
}

// The buffers of pass 2.
template <typename T> struct SuffixBuffers {
  T *q, *k, *v, *g, *qt, *xt, *scores, *o1, *o2, *state, *state_t, *kept;
};

// Pass 2 of the backward (chunks descending): gk_i = R_i v_i, gv_i = R_iᵀ k_i.
template <typename T> void backward_suffix(const Head<T>& h, const SuffixBuffers<T>& b) {
  const hn::ScalableTag<T> d;
  const int64_t C = kChunk, N = h.N, E = h.q.X, M = h.v.X, Ep = round_up(E, kPad), Mp = round_up(M, kPad);
  std::fill(b.state, b.state + Ep * Mp, T(0));      // R (Ep × Mp)
  std::fill(b.state_t, b.state_t + Ep * Mp, T(0));  // Rᵀ (Mp × Ep)
  for (int64_t t0 = (N - 1) / C * C; t0 >= 0; t0 -= C) {
    const int64_t n = std::min(C, N - t0), rows = n;
    const ChunkView<T> Q = chunk_view(h.q, t0, n, b.q), K = chunk_view(h.k, t0, n, b.k),
                       V = chunk_view(h.v, t0, n, b.v), G = chunk_view(h.g, t0, n, b.g);
    const OutChunk<T> OV = out_chunk(h.gv, M, t0, n, b.o1), OK = out_chunk(h.gk, E, t0, n, b.o2);
    for (const Slice<T>* x : {&h.q, &h.k, &h.v, &h.g}) prefetch_chunk(*x, t0 - C, N);
    transpose(d, Q.p, Q.ld, C, Ep, b.qt, C);
    masked_scores(d, b.scores, C, rows, K.p, K.ld, b.qt, Ep, /*lower=*/false);  // k_i·q_j, j ≥ i
    gemm(d, OV.p, OV.ld, rows, Mp, false, Term<T>{K.p, K.ld, 1, b.state, Mp}, Ep,
         Term<T>{b.scores, C, 1, G.p, G.ld}, n, Tri::upper);
    // v_i·g_j for j ≥ i: the kept g_j·v_i read transposed (a(i, j) = p[j·C + i]), or recomputed.
    Term<T> pt{b.scores, C, 1, Q.p, Q.ld};
    if (b.kept != nullptr) {
      pt = {b.kept + t0 * C, 1, C, Q.p, Q.ld};
    } else {
      transpose(d, G.p, G.ld, C, Mp, b.xt, C);
      masked_scores(d, b.scores, C, rows, V.p, V.ld, b.xt, Mp, /*lower=*/false);
    }
    gemm(d, OK.p, OK.ld, rows, Ep, false, Term<T>{V.p, V.ld, 1, b.state_t, Ep}, Mp, pt, n, Tri::upper);
    gemm(d, b.state, Mp, Ep, Mp, true, Term<T>{Q.p, 1, Q.ld, G.p, G.ld}, n);  // R += Q_cᵀ G_c
    transpose(d, b.state, Mp, Ep, Mp, b.state_t, Ep);
    finish(OV, h.gv, M, t0, n);
    finish(OK, h.gk, E, t0, n);
  }
}

template <typename T> void backward_head(const Head<T>& h, Scratch& scratch) {
  const int64_t C = kChunk, Ep = round_up(h.q.X, kPad), Mp = round_up(h.v.X, kPad), W = std::max(Ep, Mp);
  scratch.reset();
  SuffixBuffers<T> b;
  b.q = scratch.take<T>(C * Ep);
  b.k = scratch.take<T>(C * Ep);
  b.v = scratch.take<T>(C * Mp);
  b.g = scratch.take<T>(C * Mp);
  b.qt = scratch.take<T>(Ep * C);
  b.xt = scratch.take<T>(Mp * C);  // Vᵀ in pass 1; Gᵀ in pass 2 when the scores are recomputed
  b.scores = scratch.take<T>(C * C);
  b.o1 = scratch.take<T>(C * W);
  b.o2 = scratch.take<T>(C * W);
  b.state = scratch.take<T>(Ep * Mp);
  b.state_t = scratch.take<T>(Ep * Mp);
  // p_ij = g_i·v_j (j ≤ i) of every chunk, kept from pass 1 for pass 2, or null (recomputed).
  b.kept = keep_scores<T>(h.N) ? scratch.take<T>((h.N + C - 1) / C * C * C) : nullptr;
  backward_prefix(h, b.g, b.v, b.k, b.xt, b.scores, b.o1, b.state_t, b.kept);
  backward_suffix(h, b);
}

}  // namespace

// The entry points of dynamic dispatch (one per dtype and direction).
void ForwardHeadF32(const Head<float>& h, Scratch& s) { forward_head(h, s); }
void ForwardHeadF64(const Head<double>& h, Scratch& s) { forward_head(h, s); }
void BackwardHeadF32(const Head<float>& h, Scratch& s) { backward_head(h, s); }
void BackwardHeadF64(const Head<double>& h, Scratch& s) { backward_head(h, s); }

}  // namespace lintra::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

// --- the kernels: dispatch per (b, h) task -----------------------------------------------------------
#if HWY_ONCE
namespace lintra::kernels::cpu {

HWY_EXPORT(ForwardHeadF32);
HWY_EXPORT(ForwardHeadF64);
HWY_EXPORT(BackwardHeadF32);
HWY_EXPORT(BackwardHeadF64);

namespace {

using causal::Head;
using causal::Scratch;

// Runs f(head, scratch) for every (b, h) pair: OpenMP over the B·H pairs, one scratch per thread.
template <typename T, typename F>
void for_each_head(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* g, T* out, T* gq, T* gk, T* gv,
                   F&& f) {
  const int64_t B = q.size(0), H = q.size(1), N = q.size(2), E = q.size(3), M = v.size(3), BH = B * H;
  const size_t scratch_size = causal::scratch_bytes<T>(N, E, M);
#pragma omp parallel if (BH > 1)
  {
    Scratch scratch(scratch_size);
#pragma omp for schedule(dynamic, 1)
    for (int64_t i = 0; i < BH; ++i) {
      const int64_t b = i / H, h = i % H;
      auto slice = [&](const Tensor& t) { return causal::slice_of<T>(t, b, h); };
      const Head<T> head{slice(q), slice(k), slice(v), g != nullptr ? slice(*g) : causal::Slice<T>{},
                         out != nullptr ? out + i * N * M : nullptr, gq != nullptr ? gq + i * N * E : nullptr,
                         gk != nullptr ? gk + i * N * E : nullptr, gv != nullptr ? gv + i * N * M : nullptr, N};
      f(head, scratch);
    }
  }
}

}  // namespace

void causal_product_forward(const Tensor& q, const Tensor& k, const Tensor& v, Tensor& out) {
  if (out.numel() == 0) return;
  if (q.size(3) == 0 || q.size(2) == 0) {
    out.zero_();
    return;
  }
  dispatch_float(out.dtype(), "causal_product_forward", [&]<typename T>() {
    for_each_head<T>(q, k, v, nullptr, out.data<T>(), nullptr, nullptr, nullptr,
                     [](const Head<T>& h, Scratch& s) {
                       if constexpr (std::is_same_v<T, float>) HWY_DYNAMIC_DISPATCH(ForwardHeadF32)(h, s);
                       else HWY_DYNAMIC_DISPATCH(ForwardHeadF64)(h, s);
                     });
  });
}

void causal_product_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& grad_out, Tensor& gq,
                             Tensor& gk, Tensor& gv) {
  if (q.size(0) * q.size(1) * q.size(2) == 0) return;
  if (q.size(3) == 0 || v.size(3) == 0) {  // every sum is empty
    gq.zero_();
    gk.zero_();
    gv.zero_();
    return;
  }
  dispatch_float(gq.dtype(), "causal_product_backward", [&]<typename T>() {
    for_each_head<T>(q, k, v, &grad_out, nullptr, gq.data<T>(), gk.data<T>(), gv.data<T>(),
                     [](const Head<T>& h, Scratch& s) {
                       if constexpr (std::is_same_v<T, float>) HWY_DYNAMIC_DISPATCH(BackwardHeadF32)(h, s);
                       else HWY_DYNAMIC_DISPATCH(BackwardHeadF64)(h, s);
                     });
  });
}

}  // namespace lintra::kernels::cpu
#endif  // HWY_ONCE
