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
// and pass 2 reads them transposed, unless they would exceed 1 MiB (N > 8192 in float32), in which
// case pass 2 recomputes them and memory stays bounded for any N. Per row this costs E·M per state
// read or update (7 in all, as Algorithm 1's forward + backward: the backward recomputes the prefix
// state) plus about C·(E+M)/2 per triangular product pair (3.5 pairs), so C trades the triangle's
// cost against per-chunk overhead; C = 32 measured best for E = 32, M = 64 on the project's machine.
//
// All products go through one register-blocked micro-kernel (`tile`): a block of R rows × W
// vectors of the output is held in registers while k runs, each step broadcasting one element of
// the left operand per row and loading W vectors of the right operand's row k, so every multiply
// is an FMA on a full vector (GCC vector extensions: 512-bit vectors, AVX-512 code with
// -march=native, correct on any target; GCC contracts a + b·c into an FMA in C++ by default). The
// left operand is addressed as a(r, k) = a[r·ar + k·ak], so transposed reads (K_cᵀ V_c, the kept
// scores) need no copy; the right operand must be row-major, so each score product reads a
// transposed copy of one chunk (Kᵀ in the forward, Vᵀ and Qᵀ in the backward), and pass 2 keeps Rᵀ
// as a transposed copy of R, all made by in-register L×L transposes. These small matrix products
// run at about the speed of OpenBLAS's sgemm kernel on this machine, while calling cblas_sgemm
// for products this small costs more in call and packing overhead than the arithmetic. The states
// are small (E×M) and stay in L1/L2; each (b, h) pair is one task (OpenMP over B·H, dynamic
// schedule, scratch per thread). `lintra bench kernels --filter causal` measures forward + backward
// at B = H = 10, N = 1000, E = 32, M = 64 against cblas_sgemm; the paper's per-step loop, compiled
// the same way, runs about 13× slower.
//
// Memory layout: chunk rows are read in place when the last dim is contiguous and its width is a
// multiple of 16 (any row stride, e.g. a permuted (B, N, H, E) view); otherwise — and for the last,
// partial chunk — they are copied into zero-padded scratch (width rounded up to 16), so any
// strides work. Outputs are contiguous (kernels.h) and written in place when their width is a
// multiple of 16. Accumulation is in the input dtype, in a fixed order (results do not depend on
// the thread count).
#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "core/kernels.h"

namespace lintra::kernels::cpu {

namespace {

// --- vectors -------------------------------------------------------------------------------------

typedef float f32x16 __attribute__((vector_size(64)));
typedef double f64x8 __attribute__((vector_size(64)));
typedef float f32x16u __attribute__((vector_size(64), aligned(4)));
typedef double f64x8u __attribute__((vector_size(64), aligned(8)));
typedef int32_t i32x16 __attribute__((vector_size(64)));
typedef int64_t i64x8 __attribute__((vector_size(64)));

template <typename T> struct VecTraits;
template <> struct VecTraits<float> {
  using vec = f32x16;
  using unaligned = f32x16u;
  using index = i32x16;
  using index_elem = int32_t;
};
template <> struct VecTraits<double> {
  using vec = f64x8;
  using unaligned = f64x8u;
  using index = i64x8;
  using index_elem = int64_t;
};
template <typename T> using Vec = typename VecTraits<T>::vec;
template <typename T> constexpr int kLanes = int(64 / sizeof(T));

template <typename T> [[gnu::always_inline]] inline Vec<T> load(const T* p) {
  return *reinterpret_cast<const typename VecTraits<T>::unaligned*>(p);
}
template <typename T> [[gnu::always_inline]] inline void store(T* p, Vec<T> v) {
  *reinterpret_cast<typename VecTraits<T>::unaligned*>(p) = v;
}

constexpr int64_t kChunk = 32;     // C: rows per chunk (Note [chunked causal product])
constexpr int64_t kRowBlock = 8;   // rows per micro-kernel call; chunk rows and padded widths are multiples
constexpr int64_t kPad = 16;       // E and M are padded to a multiple of this (a multiple of both lane counts)
static_assert(kChunk % kPad == 0 && kPad % kRowBlock == 0);

inline int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

// --- the micro-kernel ----------------------------------------------------------------------------

// One term of a product: a(r, k) = a[r·ar + k·ak]; row k of the right operand starts at b + k·ldb.
template <typename T> struct Term {
  const T* a = nullptr;
  int64_t ar = 0, ak = 0;
  const T* b = nullptr;
  int64_t ldb = 0;
};

// acc[r][w] += Σ_{k0≤k<k1} t.a(r, k) · (vector w of row k of t.b).
template <typename T, int R, int W>
[[gnu::always_inline]] inline void accumulate(Vec<T> (&acc)[R][W], const Term<T>& t, int64_t k0, int64_t k1) {
  constexpr int64_t L = kLanes<T>;
  const T* a = t.a + k0 * t.ak;
  const T* b = t.b + k0 * t.ldb;
  for (int64_t k = k0; k < k1; ++k, a += t.ak, b += t.ldb) {
    Vec<T> bv[W];
#pragma GCC unroll 4
    for (int w = 0; w < W; ++w) bv[w] = load(b + w * L);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const T s = a[r * t.ar];
#pragma GCC unroll 4
      for (int w = 0; w < W; ++w) acc[r][w] += s * bv[w];  // contracted to an FMA
    }
  }
}

// c (R rows × W vectors, row stride ldc) = [c +] Σ_{k<kx} x.a(r,k)·x.b[k] + Σ_{ky0≤k<ky1} y.a(r,k)·y.b[k].
template <typename T, int R, int W>
[[gnu::always_inline]] inline void tile(T* __restrict c, int64_t ldc, bool add_to_c, const Term<T>& x,
                                        int64_t kx, const Term<T>& y, int64_t ky0, int64_t ky1) {
  constexpr int64_t L = kLanes<T>;
  Vec<T> acc[R][W];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int w = 0; w < W; ++w) acc[r][w] = add_to_c ? load(c + r * ldc + w * L) : Vec<T>{};
  accumulate<T, R, W>(acc, x, 0, kx);
  if (y.a != nullptr) accumulate<T, R, W>(acc, y, ky0, ky1);
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int w = 0; w < W; ++w) store(c + r * ldc + w * L, acc[r][w]);
}

// One block of kRowBlock rows, output vectors [v0, v1): 4-vector-wide tiles of 4 rows (16
// accumulators), then one 8-row tile for the remaining 1–3 vectors (at most 24 accumulators).
template <typename T>
void row_block(T* c, int64_t ldc, bool add_to_c, const Term<T>& x, int64_t kx, const Term<T>& y, int64_t ky0,
               int64_t ky1, int64_t v0, int64_t v1) {
  constexpr int64_t L = kLanes<T>;
  auto shifted = [](Term<T> t, int64_t rows, int64_t vecs) {
    if (t.a != nullptr) {
      t.a += rows * t.ar;
      t.b += vecs * L;
    }
    return t;
  };
  int64_t v = v0;
  for (; v + 4 <= v1; v += 4) {
    tile<T, 4, 4>(c + v * L, ldc, add_to_c, shifted(x, 0, v), kx, shifted(y, 0, v), ky0, ky1);
    tile<T, 4, 4>(c + 4 * ldc + v * L, ldc, add_to_c, shifted(x, 4, v), kx, shifted(y, 4, v), ky0, ky1);
  }
  const Term<T> xs = shifted(x, 0, v), ys = shifted(y, 0, v);
  switch (v1 - v) {
    case 3: tile<T, 8, 3>(c + v * L, ldc, add_to_c, xs, kx, ys, ky0, ky1); break;
    case 2: tile<T, 8, 2>(c + v * L, ldc, add_to_c, xs, kx, ys, ky0, ky1); break;
    case 1: tile<T, 8, 1>(c + v * L, ldc, add_to_c, xs, kx, ys, ky0, ky1); break;
    default: break;
  }
}

enum class Tri { none, lower, upper };

// c (rows × cols) = [c +] x.a (rows × kx)·x.b + y.a (rows × ky)·y.b, where y.a is lower (zero for
// k > row) or upper (zero for k < row) triangular: the row block starting at r then runs k over
// [0, r + 8) or [r, ky) only. rows is a multiple of kRowBlock, cols of the lanes.
template <typename T>
void gemm(T* c, int64_t ldc, int64_t rows, int64_t cols, bool add_to_c, const Term<T>& x, int64_t kx,
          const Term<T>& y = {}, int64_t ky = 0, Tri tri = Tri::none) {
  const int64_t nv = cols / kLanes<T>;
  for (int64_t r = 0; r < rows; r += kRowBlock) {
    Term<T> xr = x, yr = y;
    xr.a += r * x.ar;
    if (y.a != nullptr) yr.a += r * y.ar;
    const int64_t k0 = tri == Tri::upper ? std::min(r, ky) : 0;
    const int64_t k1 = tri == Tri::lower ? std::min(ky, r + kRowBlock) : ky;
    row_block<T>(c + r * ldc, ldc, add_to_c, xr, kx, yr, k0, k1, 0, nv);
  }
}

// s (rows × C, row stride C) = a (rows × K)·bt (K × C), keeping the lower (j ≤ i) or upper (j ≥ i)
// triangle and zeroing the other side within the vectors a row block touches; entries outside them
// are left unset (the triangular products above never read them).
template <typename T>
void masked_scores(T* s, int64_t C, int64_t rows, const T* a, int64_t lda, const T* bt, int64_t K,
                   bool lower) {
  using V = Vec<T>;
  constexpr int64_t L = kLanes<T>;
  V lane;  // 0, 1, …, L − 1
  for (int j = 0; j < L; ++j) lane[j] = T(j);
  const Term<T> x{a, lda, 1, bt, C};
  for (int64_t r = 0; r < rows; r += kRowBlock) {
    Term<T> xr = x;
    xr.a += r * lda;
    const int64_t v0 = lower ? 0 : r / L;
    const int64_t v1 = lower ? (r + kRowBlock + L - 1) / L : C / L;
    row_block<T>(s + r * C, C, false, xr, K, {}, 0, 0, v0, v1);
    for (int64_t i = r; i < r + kRowBlock; ++i) {
      T* si = s + i * C;
      const int64_t d = i / L;  // the vector holding the diagonal
      const V col = lane + T(d * L);
      const V x_d = load(si + d * L);
      store(si + d * L, (lower ? col > T(i) : col < T(i)) ? V{} : x_d);
      for (int64_t w = lower ? d + 1 : v0; w < (lower ? v1 : d); ++w) store(si + w * L, V{});
    }
  }
}

// --- transposes ----------------------------------------------------------------------------------

// Butterfly transpose of an L×L block held in L registers: the stage of distance w pairs rows i
// and i + w (bit w of i clear) and exchanges their off-diagonal w-wide blocks.
template <typename T, int w> struct ButterflyMasks {
  using Index = typename VecTraits<T>::index_elem;
  static constexpr int L = kLanes<T>;
  static constexpr std::array<Index, L> make(bool second) {
    std::array<Index, L> m{};
    for (int j = 0; j < L; ++j) {
      if (second) m[size_t(j)] = Index((j & w) ? L + j : j + w);
      else m[size_t(j)] = Index((j & w) ? L + j - w : j);
    }
    return m;
  }
  static constexpr std::array<Index, L> first_half = make(false), second_half = make(true);
};

template <typename T, int w> [[gnu::always_inline]] inline void butterfly(Vec<T>* r) {
  using Index = typename VecTraits<T>::index;
  Index lo, hi;
  std::memcpy(&lo, ButterflyMasks<T, w>::first_half.data(), sizeof(Index));
  std::memcpy(&hi, ButterflyMasks<T, w>::second_half.data(), sizeof(Index));
#pragma GCC unroll 16
  for (int i = 0; i < kLanes<T>; ++i) {
    if (i & w) continue;
    const Vec<T> a = r[i], b = r[i + w];
    r[i] = __builtin_shuffle(a, b, lo);
    r[i + w] = __builtin_shuffle(a, b, hi);
  }
  if constexpr (w > 1) butterfly<T, w / 2>(r);
}

// dst (cols × rows, row stride ldd) = srcᵀ for src (rows × cols, row stride lds); rows and cols are
// multiples of the lanes.
template <typename T>
void transpose(const T* src, int64_t lds, int64_t rows, int64_t cols, T* dst, int64_t ldd) {
  constexpr int L = kLanes<T>;
  for (int64_t i0 = 0; i0 < rows; i0 += L) {
    for (int64_t j0 = 0; j0 < cols; j0 += L) {
      Vec<T> r[L];
#pragma GCC unroll 16
      for (int i = 0; i < L; ++i) r[i] = load(src + (i0 + i) * lds + j0);
      butterfly<T, L / 2>(r);
#pragma GCC unroll 16
      for (int i = 0; i < L; ++i) store(dst + (j0 + i) * ldd + i0, r[i]);
    }
  }
}

// --- chunks of the inputs and outputs ------------------------------------------------------------

// One (b, h) slice of a (B, H, N, X) tensor: element (i, x) at p[i·rs + x·cs].
template <typename T> struct Slice {
  const T* p;
  int64_t rs, cs, X;
};

template <typename T> Slice<T> slice_of(const Tensor& t, int64_t b, int64_t h) {
  const T* p = t.data<T>() + b * t.stride(0) + h * t.stride(1);
  return {p, t.stride(2), t.stride(3), t.size(3)};
}

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
    thread_local std::vector<f64x8> buffer;
    const size_t n = bytes / sizeof(f64x8) + 1;
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
// when that takes at most this many bytes per thread — N·C elements, i.e. N ≤ 8192 in float32 —
// and recomputes it otherwise, so that memory stays bounded for any N.
constexpr int64_t kMaxKeptScoreBytes = int64_t(1) << 20;

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

// --- one (b, h) pair -----------------------------------------------------------------------------

template <typename T>
void forward_head(const Slice<T>& q, const Slice<T>& k, const Slice<T>& v, T* out, int64_t N, Scratch& scratch) {
  const int64_t C = kChunk, E = q.X, M = v.X, Ep = round_up(E, kPad), Mp = round_up(M, kPad);
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
    const int64_t n = std::min(C, N - t0), rows = round_up(n, kRowBlock);
    const ChunkView<T> Q = chunk_view(q, t0, n, qbuf), K = chunk_view(k, t0, n, kbuf), V = chunk_view(v, t0, n, vbuf);
    const OutChunk<T> O = out_chunk(out, M, t0, n, obuf);
    transpose(K.p, K.ld, C, Ep, kt, C);
    masked_scores(scores, C, rows, Q.p, Q.ld, kt, Ep, /*lower=*/true);  // q_i·k_j, j ≤ i
    gemm<T>(O.p, O.ld, rows, Mp, false, {Q.p, Q.ld, 1, S, Mp}, Ep, {scores, C, 1, V.p, V.ld}, n, Tri::lower);
    gemm<T>(S, Mp, Ep, Mp, true, {K.p, 1, K.ld, V.p, V.ld}, n);  // S += K_cᵀ V_c
    finish(O, out, M, t0, n);
  }
}

template <typename T>
void backward_head(const Slice<T>& q, const Slice<T>& k, const Slice<T>& v, const Slice<T>& g, T* gq, T* gk, T* gv,
                   int64_t N, Scratch& scratch) {
  const int64_t C = kChunk, E = q.X, M = v.X, Ep = round_up(E, kPad), Mp = round_up(M, kPad);
  const int64_t W = std::max(Ep, Mp);
  scratch.reset();
  T* qbuf = scratch.take<T>(C * Ep);
  T* kbuf = scratch.take<T>(C * Ep);
  T* vbuf = scratch.take<T>(C * Mp);
  T* gbuf = scratch.take<T>(C * Mp);
  T* qt = scratch.take<T>(Ep * C);
  T* xt = scratch.take<T>(Mp * C);  // Vᵀ in pass 1; Gᵀ in pass 2 when the scores are recomputed
  T* scores = scratch.take<T>(C * C);
  T* obuf1 = scratch.take<T>(C * W);
  T* obuf2 = scratch.take<T>(C * W);
  T* state = scratch.take<T>(Ep * Mp);    // pass 2: R (Ep × Mp)
  T* state_t = scratch.take<T>(Ep * Mp);  // pass 1: Sᵀ (Mp × Ep); pass 2: Rᵀ
  // p_ij = g_i·v_j (j ≤ i) of every chunk, kept from pass 1 for pass 2, or null (recomputed).
  T* kept = keep_scores<T>(N) ? scratch.take<T>((N + C - 1) / C * C * C) : nullptr;

  // Pass 1 (chunks ascending): gq_i = S_i g_i.
  std::fill(state_t, state_t + Ep * Mp, T(0));
  for (int64_t t0 = 0; t0 < N; t0 += C) {
    const int64_t n = std::min(C, N - t0), rows = round_up(n, kRowBlock);
    const ChunkView<T> G = chunk_view(g, t0, n, gbuf), V = chunk_view(v, t0, n, vbuf), K = chunk_view(k, t0, n, kbuf);
    const OutChunk<T> O = out_chunk(gq, E, t0, n, obuf1);
    T* p = kept != nullptr ? kept + t0 * C : scores;
    transpose(V.p, V.ld, C, Mp, xt, C);
    masked_scores(p, C, rows, G.p, G.ld, xt, Mp, /*lower=*/true);  // g_i·v_j, j ≤ i
    gemm<T>(O.p, O.ld, rows, Ep, false, {G.p, G.ld, 1, state_t, Ep}, Mp, {p, C, 1, K.p, K.ld}, n, Tri::lower);
    gemm<T>(state_t, Ep, Mp, Ep, true, {V.p, 1, V.ld, K.p, K.ld}, n);  // Sᵀ += V_cᵀ K_c
    finish(O, gq, E, t0, n);
  }

  // Pass 2 (chunks descending): gk_i = R_i v_i, gv_i = R_iᵀ k_i.
  std::fill(state, state + Ep * Mp, T(0));
  std::fill(state_t, state_t + Ep * Mp, T(0));
  for (int64_t t0 = (N - 1) / C * C; t0 >= 0; t0 -= C) {
    const int64_t n = std::min(C, N - t0), rows = round_up(n, kRowBlock);
    const ChunkView<T> Q = chunk_view(q, t0, n, qbuf), K = chunk_view(k, t0, n, kbuf), V = chunk_view(v, t0, n, vbuf),
                       G = chunk_view(g, t0, n, gbuf);
    const OutChunk<T> OV = out_chunk(gv, M, t0, n, obuf1), OK = out_chunk(gk, E, t0, n, obuf2);
    transpose(Q.p, Q.ld, C, Ep, qt, C);
    masked_scores(scores, C, rows, K.p, K.ld, qt, Ep, /*lower=*/false);  // k_i·q_j, j ≥ i
    gemm<T>(OV.p, OV.ld, rows, Mp, false, {K.p, K.ld, 1, state, Mp}, Ep, {scores, C, 1, G.p, G.ld}, n, Tri::upper);
    // v_i·g_j for j ≥ i: the kept g_j·v_i read transposed (a(i, j) = p[j·C + i]), or recomputed.
    Term<T> pt{scores, C, 1, Q.p, Q.ld};
    if (kept != nullptr) {
      pt = {kept + t0 * C, 1, C, Q.p, Q.ld};
    } else {
      transpose(G.p, G.ld, C, Mp, xt, C);
      masked_scores(scores, C, rows, V.p, V.ld, xt, Mp, /*lower=*/false);
    }
    gemm<T>(OK.p, OK.ld, rows, Ep, false, {V.p, V.ld, 1, state_t, Ep}, Mp, pt, n, Tri::upper);
    gemm<T>(state, Mp, Ep, Mp, true, {Q.p, 1, Q.ld, G.p, G.ld}, n);  // R += Q_cᵀ G_c
    transpose(state, Mp, Ep, Mp, state_t, Ep);
    finish(OV, gv, M, t0, n);
    finish(OK, gk, E, t0, n);
  }
}

// Runs f(b, h, scratch) for every (b, h) pair: OpenMP over the B·H pairs, one scratch per thread.
template <typename F> void for_each_head(int64_t B, int64_t H, size_t scratch_size, F&& f) {
  const int64_t BH = B * H;
#pragma omp parallel if (BH > 1)
  {
    Scratch scratch(scratch_size);
#pragma omp for schedule(dynamic, 1)
    for (int64_t i = 0; i < BH; ++i) f(i / H, i % H, scratch);
  }
}

}  // namespace

void causal_product_forward(const Tensor& q, const Tensor& k, const Tensor& v, Tensor& out) {
  const int64_t B = q.size(0), H = q.size(1), N = q.size(2), E = q.size(3), M = v.size(3);
  if (out.numel() == 0) return;
  if (E == 0 || N == 0) {
    out.zero_();
    return;
  }
  dispatch_float(out.dtype(), "causal_product_forward", [&]<typename T>() {
    for_each_head(B, H, scratch_bytes<T>(N, E, M), [&](int64_t b, int64_t h, Scratch& s) {
      forward_head<T>(slice_of<T>(q, b, h), slice_of<T>(k, b, h), slice_of<T>(v, b, h),
                      out.data<T>() + (b * H + h) * N * M, N, s);
    });
  });
}

void causal_product_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& grad_out, Tensor& gq,
                             Tensor& gk, Tensor& gv) {
  const int64_t B = q.size(0), H = q.size(1), N = q.size(2), E = q.size(3), M = v.size(3);
  if (B * H * N == 0) return;
  if (E == 0 || M == 0) {  // every sum is empty
    gq.zero_();
    gk.zero_();
    gv.zero_();
    return;
  }
  dispatch_float(gq.dtype(), "causal_product_backward", [&]<typename T>() {
    for_each_head(B, H, scratch_bytes<T>(N, E, M), [&](int64_t b, int64_t h, Scratch& s) {
      const int64_t i = b * H + h;
      backward_head<T>(slice_of<T>(q, b, h), slice_of<T>(k, b, h), slice_of<T>(v, b, h), slice_of<T>(grad_out, b, h),
                       gq.data<T>() + i * N * E, gk.data<T>() + i * N * E, gv.data<T>() + i * N * M, N, s);
    });
  });
}

}  // namespace lintra::kernels::cpu
