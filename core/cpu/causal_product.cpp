// cpu/causal_product.cpp — the fused causal linear product (the numerator of causal linear
// attention, PAPER.md §3) and its constant-memory backward (Algorithm 1), as register-resident state
// sweeps.
//
//   out_i = Σ_{j≤i} (q_i·k_j) v_j = S_iᵀ q_i,          S_i = Σ_{j≤i} k_j v_jᵀ   (E × M)
//   gq_i  = S_i g_i                                     (forward prefix)
//   gk_i  = R_i v_i,  gv_i = R_iᵀ k_i,                  R_i = Σ_{j≥i} q_j g_jᵀ   (reverse suffix)
// for q, k (B, H, N, E), v, g (B, H, N, M). Time O(B·H·N·E·M); scratch O((E + 16)·(M + 32) + 32·(E + M))
// per thread: nothing of size N×N or N×E×M, and nothing that grows with N.
//
// Note [state sweeps]
// Every product of Algorithm 1 is one sweep over the rows t of a sequence, ascending or descending,
// that keeps a state X (A × L) and per row does a rank-1 update and then reads the state:
//     X += a_t b_tᵀ,        o_t = Xᵀ c_t                              (2·A·L multiply-adds)
//   forward      X = S  (E × M):  a = k, b = v, c = q, o = out       ascending
//   backward 1   X = Sᵀ (M × E):  a = v, b = k, c = g, o = gq        ascending
//   backward 2   X = R  (E × M):  a = q, b = g, c = k, o = gv        descending
//                X = Rᵀ (M × E):  a = g, b = q, c = v, o = gk        descending (same pass)
// The paper's loop keeps S in memory and so streams the whole E × M state through the load/store
// units twice per row. Here X is cut into register tiles of R rows × W vectors (16 × 1 or 8 × 2 with
// AVX-512's 32 registers, 8 × 1 or 4 × 2 with 16): a tile stays in registers while it sweeps a
// segment of 8, 16 or 32 rows (cpu/causal_sweep.h, Note [segment length]), and per row it takes W
// vector loads of b_t, 2·R broadcasts of a_t and c_t and W loads and stores of o_t for 2·R·W FMAs,
// every one on a full vector — the loop runs at the FMA peak while the segment sits in L1. The tiles
// of one segment run one after another (the state goes to scratch between segments), tiles of rows
// after the first add their part of o_t to what the earlier ones stored. Per row this executes 2·E·M
// multiply-adds in the forward and 6·E·M in the backward (the prefix state is recomputed, as in
// Algorithm 1), against the 6·E·M that `lintra bench kernels` counts for both; the chunked form it
// replaced (matrix products on chunks of 32 rows plus their triangular in-chunk products) executed
// about 10.5·E·M at E = M = 32 (experiments/kernels/README.md, session 11).
//
// Each sweep is written once over Highway and compiled for each x86 target (SSSE3, SSE4, AVX2,
// AVX-512; scalar as the fallback); HWY_DYNAMIC_DISPATCH picks the best one the CPU has, per (b, h)
// task. Each (b, h) pair is one task (team_for over B·H, cpu/team_loop.h; scratch per thread).
//
// Memory layout: a segment's rows are read in place when the last dim is contiguous and its width
// fills whole tiles (any row stride, e.g. a permuted (B, N, H, E) view; a descending sweep walks the
// rows with a negative stride); otherwise they are copied into zero-padded scratch, so any strides
// work (zero rows of a and c and zero columns of b leave the padding of the state at zero). Outputs
// are contiguous (kernels.h) and written in place when their width fills whole tiles. Accumulation
// is in the input dtype, in a fixed order per row and tile: results do not depend on the thread
// count, and differ between targets only by the order of float rounding.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/cpu/causal_product.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "core/cpu/causal_sweep.h"

// --- target-independent parts (compiled once) ------------------------------------------------------
#ifndef LINTRA_CORE_CPU_CAUSAL_PRODUCT_ONCE_
#define LINTRA_CORE_CPU_CAUSAL_PRODUCT_ONCE_

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "core/cpu/team_loop.h"
#include "core/kernels.h"

namespace lintra::kernels::cpu::causal {

inline int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

// One (b, h) slice of a (B, H, N, X) tensor: element (t, x) at p[t·rs + x·cs].
template <typename T> struct Slice {
  const T* p;
  int64_t rs, cs, X;
};

template <typename T> Slice<T> slice_of(const Tensor& t, int64_t b, int64_t h) {
  return {t.data<T>() + b * t.stride(0) + h * t.stride(1), t.stride(2), t.stride(3), t.size(3)};
}

// One sweep of Note [state sweeps]: X (a.X × b.X) += a_t b_tᵀ, then o_t = Xᵀ c_t (c.X == a.X), for
// every row t; o is a contiguous (N, b.X) output.
template <typename T> struct Sweep {
  Slice<T> a, b, c;
  T* o;
};

// What one (b, h) task reads and writes: the forward fills out, the backward gq, gk, gv.
template <typename T> struct Head {
  Slice<T> q, k, v, g;
  T *out, *gq, *gk, *gv;
  int64_t N;
};

// Rows [t0, t0 + n) of a slice as a row-major block of width w ≥ X with unit column stride: read in
// place when the slice's rows already are, else copied into buf (n × w) with zero padding.
template <typename T> struct Block {
  const T* p;
  int64_t ld;
};

// Where a segment of a contiguous (N, L) output is written: in place, or in scratch and copied after.
template <typename T> struct OutBlock {
  T* p;
  int64_t ld;
};

template <typename T> Block<T> block_of(const Slice<T>& s, int64_t t0, int64_t n, int64_t w, T* buf) {
  if (s.cs == 1 && s.X == w) return {s.p + t0 * s.rs, s.rs};
  for (int64_t i = 0; i < n; ++i) {
    const T* src = s.p + (t0 + i) * s.rs;
    T* d = buf + i * w;
    if (s.cs == 1) {
      std::copy(src, src + s.X, d);
    } else {
      for (int64_t x = 0; x < s.X; ++x) d[x] = src[x * s.cs];
    }
    std::fill(d + s.X, d + w, T(0));
  }
  return {buf, w};
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

// Upper bound of the bytes one (b, h) task takes from Scratch: two sweeps (the backward's second
// pass), each with its state and a segment of a, b, c and o, at the widest padding of any target.
template <typename T> size_t scratch_bytes(int64_t E, int64_t M) {
  const int64_t A = round_up(std::max(E, M), kMaxTileRows), L = round_up(std::max(E, M), kMaxTileWidth);
  const int64_t per_sweep = A * L + kMaxSegment * (2 * A + 2 * L);
  return size_t(2 * per_sweep) * sizeof(T) + 16 * 64;
}

}  // namespace lintra::kernels::cpu::causal

#endif  // LINTRA_CORE_CPU_CAUSAL_PRODUCT_ONCE_

// --- per-target parts ------------------------------------------------------------------------------
HWY_BEFORE_NAMESPACE();
namespace lintra::kernels::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace {

using namespace causal;  // NOLINT: the shared parts above

// Vectors of state a tile keeps in registers: half the register file, so that b_t's vectors, the
// read's accumulators and the broadcasts fit beside it.
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
constexpr size_t kStateVectors = 16;  // 32 vector registers
#else
constexpr size_t kStateVectors = 8;  // 16 vector registers (SSE4, AVX2)
#endif

// One register tile (R rows × W vectors) of a state sweeping n rows. Pointers address the tile's
// first row, column and the sweep's first row; row steps (lda, …) are negative for a descending
// sweep. kAdd: o_t += the tile's part of Xᵀ c_t (a later row tile) instead of o_t = it.
template <size_t R, size_t W, bool kAdd, class D, typename T = hn::TFromD<D>>
HWY_INLINE void sweep_tile(D d, T* HWY_RESTRICT x, int64_t ldx, const T* a, int64_t lda, const T* b, int64_t ldb,
                           const T* c, int64_t ldc, T* o, int64_t ldo, int64_t n) {
  static_assert(R >= 2 && R % 2 == 0, "the read pairs rows: even and odd accumulators");
  using V = hn::Vec<D>;
  const size_t L = hn::Lanes(d);
  V s[R][W];
  for (size_t r = 0; r < R; ++r)
    for (size_t w = 0; w < W; ++w) s[r][w] = hn::LoadU(d, x + int64_t(r) * ldx + int64_t(w * L));
  for (int64_t i = 0; i < n; ++i) {
    V bv[W];
    for (size_t w = 0; w < W; ++w) bv[w] = hn::LoadU(d, b + w * L);
    for (size_t r = 0; r < R; ++r) {
      const V ar = hn::Set(d, a[r]);
      for (size_t w = 0; w < W; ++w) s[r][w] = hn::MulAdd(ar, bv[w], s[r][w]);
    }
    // Two accumulators per vector (even and odd rows) halve the read's dependency chain.
    V even[W], odd[W];
    for (size_t w = 0; w < W; ++w) {
      even[w] = hn::Mul(hn::Set(d, c[0]), s[0][w]);
      odd[w] = hn::Mul(hn::Set(d, c[1]), s[1][w]);
    }
    for (size_t r = 2; r < R; r += 2) {
      const V ce = hn::Set(d, c[r]), co = hn::Set(d, c[r + 1]);
      for (size_t w = 0; w < W; ++w) {
        even[w] = hn::MulAdd(ce, s[r][w], even[w]);
        odd[w] = hn::MulAdd(co, s[r + 1][w], odd[w]);
      }
    }
    for (size_t w = 0; w < W; ++w) {
      V sum = hn::Add(even[w], odd[w]);
      if constexpr (kAdd) sum = hn::Add(hn::LoadU(d, o + w * L), sum);
      hn::StoreU(sum, d, o + w * L);
    }
    a += lda;
    b += ldb;
    c += ldc;
    o += ldo;
  }
  for (size_t r = 0; r < R; ++r)
    for (size_t w = 0; w < W; ++w) hn::StoreU(s[r][w], d, x + int64_t(r) * ldx + int64_t(w * L));
}

// A sweep's per-task state: its geometry (state Ap × Lp, tiles of R rows × W vectors) and buffers.
template <typename T> struct SweepState {
  Sweep<T> s;
  bool wide;  // tiles of 2 vectors (kStateVectors / 2 rows) rather than 1 (kStateVectors rows)
  int64_t Ap, Lp;
  T *x, *a, *b, *c, *o;
};

template <typename T> SweepState<T> sweep_state(const Sweep<T>& s, Scratch& scratch) {
  const hn::ScalableTag<T> d;
  const int64_t lanes = int64_t(hn::Lanes(d)), vectors = round_up(s.b.X, lanes) / lanes;
  SweepState<T> st{s, vectors % 2 == 0, 0, 0, nullptr, nullptr, nullptr, nullptr, nullptr};
  st.Ap = round_up(s.a.X, int64_t(st.wide ? kStateVectors / 2 : kStateVectors));
  st.Lp = vectors * lanes;
  st.x = scratch.take<T>(st.Ap * st.Lp);
  std::fill(st.x, st.x + st.Ap * st.Lp, T(0));
  st.a = scratch.take<T>(kMaxSegment * st.Ap);
  st.c = scratch.take<T>(kMaxSegment * st.Ap);
  st.b = scratch.take<T>(kMaxSegment * st.Lp);
  st.o = scratch.take<T>(kMaxSegment * st.Lp);
  return st;
}

// Every tile of one state over one segment (n rows, blocks as block_of gives them), first row
// first (or last row first when descending).
template <size_t R, size_t W, typename T>
void sweep_segment(const SweepState<T>& st, Block<T> a, Block<T> b, Block<T> c, OutBlock<T> o, int64_t n,
                   bool descending) {
  const hn::ScalableTag<T> d;
  const int64_t tile_width = int64_t(W * hn::Lanes(d));
  const int64_t first = descending ? n - 1 : 0, dir = descending ? -1 : 1;
  for (int64_t r0 = 0; r0 < st.Ap; r0 += int64_t(R))
    for (int64_t l0 = 0; l0 < st.Lp; l0 += tile_width) {
      T* x = st.x + r0 * st.Lp + l0;
      const T* ap = a.p + first * a.ld + r0;
      const T* bp = b.p + first * b.ld + l0;
      const T* cp = c.p + first * c.ld + r0;
      T* op = o.p + first * o.ld + l0;
      if (r0 == 0) {
        sweep_tile<R, W, false>(d, x, st.Lp, ap, dir * a.ld, bp, dir * b.ld, cp, dir * c.ld, op, dir * o.ld, n);
      } else {
        sweep_tile<R, W, true>(d, x, st.Lp, ap, dir * a.ld, bp, dir * b.ld, cp, dir * c.ld, op, dir * o.ld, n);
      }
    }
}

// The segment length of a pass (Note [segment length]): the distinct rows its sweeps read (the
// backward's second pass reads q and g twice) and write, and their states.
template <typename T> int64_t pass_segment_rows(const SweepState<T>* st, int count) {
  if (const int64_t forced = forced_segment_rows(); forced > 0) return forced;
  static const int64_t l1d = l1d_bytes();
  const T* inputs[6];  // at most three per sweep, two sweeps: no allocation per task
  int n_inputs = 0;
  int64_t row_elems = 0, state_elems = 0;
  for (int i = 0; i < count; ++i) {
    const Sweep<T>& s = st[i].s;
    for (const Slice<T>* in : {&s.a, &s.b, &s.c})
      if (std::find(inputs, inputs + n_inputs, in->p) == inputs + n_inputs) {
        inputs[n_inputs++] = in->p;
        row_elems += in->X;
      }
    row_elems += s.b.X;  // o_t
    state_elems += st[i].Ap * st[i].Lp;
  }
  return segment_rows(row_elems * int64_t(sizeof(T)), state_elems * int64_t(sizeof(T)), l1d);
}

// Runs `count` sweeps over the N rows of a task side by side, segment by segment (so sweeps that
// read the same rows find them in L1), ascending or descending.
template <typename T> void run_sweeps(const Sweep<T>* sweeps, int count, int64_t N, bool descending, Scratch& scratch) {
  scratch.reset();
  SweepState<T> st[2];
  for (int i = 0; i < count; ++i) st[i] = sweep_state(sweeps[i], scratch);
  const int64_t seg = pass_segment_rows(st, count);
  const int64_t segments = (N + seg - 1) / seg;
  for (int64_t j = 0; j < segments; ++j) {
    const int64_t t0 = (descending ? segments - 1 - j : j) * seg, n = std::min(seg, N - t0);
    for (int i = 0; i < count; ++i) {
      const SweepState<T>& s = st[i];
      const Block<T> a = block_of(s.s.a, t0, n, s.Ap, s.a), b = block_of(s.s.b, t0, n, s.Lp, s.b),
                     c = block_of(s.s.c, t0, n, s.Ap, s.c);
      const int64_t L = s.s.b.X;
      const bool in_place = L == s.Lp;
      const OutBlock<T> o = in_place ? OutBlock<T>{s.s.o + t0 * L, L} : OutBlock<T>{s.o, s.Lp};
      if (s.wide) {
        sweep_segment<kStateVectors / 2, 2>(s, a, b, c, o, n, descending);
      } else {
        sweep_segment<kStateVectors, 1>(s, a, b, c, o, n, descending);
      }
      if (!in_place)
        for (int64_t r = 0; r < n; ++r) std::copy(s.o + r * s.Lp, s.o + r * s.Lp + L, s.s.o + (t0 + r) * L);
    }
  }
}

template <typename T> void forward_head(const Head<T>& h, Scratch& scratch) {
  const Sweep<T> s{h.k, h.v, h.q, h.out};
  run_sweeps(&s, 1, h.N, /*descending=*/false, scratch);
}

template <typename T> void backward_head(const Head<T>& h, Scratch& scratch) {
  const Sweep<T> prefix{h.v, h.k, h.g, h.gq};
  run_sweeps(&prefix, 1, h.N, /*descending=*/false, scratch);
  const Sweep<T> suffix[2] = {{h.q, h.g, h.k, h.gv}, {h.g, h.q, h.v, h.gk}};
  run_sweeps(suffix, 2, h.N, /*descending=*/true, scratch);
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

namespace causal {

namespace {
std::atomic<int64_t> forced_rows{0};
}  // namespace

int64_t segment_rows(int64_t row_bytes, int64_t state_bytes, int64_t l1d_bytes) {
  for (int64_t rows : kSegmentChoices)
    if (rows * row_bytes + state_bytes <= l1d_bytes / 2) return rows;
  return kSegmentChoices[std::size(kSegmentChoices) - 1];
}

int64_t l1d_bytes() {
  const long bytes = sysconf(_SC_LEVEL1_DCACHE_SIZE);
  return bytes > 0 ? int64_t(bytes) : int64_t(32) << 10;
}

void force_segment_rows(int64_t rows) {
  LINTRA_CHECK(rows == 0 || std::ranges::find(kSegmentChoices, rows) != std::end(kSegmentChoices),
               "causal product: segment length {} is not one of 32, 16, 8 (or 0 to choose)", rows);
  forced_rows.store(rows);
}

int64_t forced_segment_rows() { return forced_rows.load(std::memory_order_relaxed); }

}  // namespace causal

HWY_EXPORT(ForwardHeadF32);
HWY_EXPORT(ForwardHeadF64);
HWY_EXPORT(BackwardHeadF32);
HWY_EXPORT(BackwardHeadF64);

namespace {

using causal::Head;
using causal::Scratch;

// Runs f(head, scratch) for every (b, h) pair: the B·H pairs handed to the team one at a time, one scratch
// per thread (cpu/team_loop.h).
template <typename T, typename F>
void for_each_head(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* g, T* out, T* gq, T* gk, T* gv,
                   F&& f) {
  const int64_t B = q.size(0), H = q.size(1), N = q.size(2), E = q.size(3), M = v.size(3), BH = B * H;
  const size_t scratch_size = causal::scratch_bytes<T>(E, M);
  team_for_with(
      BH, true, [&] { return Scratch(scratch_size); },
      [&](int64_t i, Scratch& scratch) {
        const int64_t b = i / H, h = i % H;
        auto slice = [&](const Tensor& t) { return causal::slice_of<T>(t, b, h); };
        const Head<T> head{slice(q), slice(k), slice(v), g != nullptr ? slice(*g) : causal::Slice<T>{},
                           out != nullptr ? out + i * N * M : nullptr, gq != nullptr ? gq + i * N * E : nullptr,
                           gk != nullptr ? gk + i * N * E : nullptr, gv != nullptr ? gv + i * N * M : nullptr, N};
        f(head, scratch);
      });
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
