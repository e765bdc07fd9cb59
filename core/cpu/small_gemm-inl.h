// cpu/small_gemm-inl.h — a register-blocked micro-kernel for small matrix products whose operands
// sit in L1/L2 (the chunk products of the causal linear product, cpu/causal_product.cpp), written
// once over Highway's vector ops and compiled for every target of the including translation unit
// (a Highway per-target header: include it after hwy/foreach_target.h and hwy/highway.h).
//
//   c (rows × cols) = [c +] Σ_{k<kx} x.a(r, k)·x.b[k, :] + Σ_{ky0≤k<ky1} y.a(r, k)·y.b[k, :]
//
// The left operand of a term is addressed as a(r, k) = a[r·ar + k·ak], so a transposed read (Kᵀ·V)
// needs no copy; the right operand is row-major with row stride ldb. A block of kTileRows rows × W
// vectors of c lives in registers while k runs; each step loads W vectors of b's row k and
// broadcasts one element of a per row, so every multiply is an FMA on a full vector. The tile is
// sized to the target's register file: 6 rows × ≤ 2 vectors (12 accumulators, 2 operands and a
// broadcast: GCC keeps them all in registers, where 4 × 3 made it reload the operands from memory)
// with 16 vector registers (SSE4, AVX2), 8 rows × ≤ 3 vectors with 32 (AVX-512, NEON). Rows are cut
// into balanced blocks (32 rows: 5, 5, 5, 5, 6, 6), never a narrow remainder.
// Cost: rows·cols·(kx + ky1 − ky0) multiply-adds; per k step W loads and R broadcasts for R·W FMAs,
// so the loop runs near the FMA peak while a and b stay in L1 (experiments/kernels/small_gemm_shapes:
// 0.95–0.99 of a 1024³ cblas_sgemm's rate on the causal product's full products, AVX2).
//
// Shapes: any number of rows; cols a multiple of kPad (16 elements, a multiple of every target's lane
// count); c, x.b and y.b rows hold at least cols elements. Callers pad widths with zeros.

#ifndef LINTRA_CORE_CPU_SMALL_GEMM_SHAPES_
#define LINTRA_CORE_CPU_SMALL_GEMM_SHAPES_
#include <cstdint>
namespace lintra::kernels::cpu::small_gemm {
constexpr int64_t kPad = 16;      // callers pad widths to a multiple (≥ every target's lanes)
inline int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }
}  // namespace lintra::kernels::cpu::small_gemm
#endif

#if defined(LINTRA_CORE_CPU_SMALL_GEMM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef LINTRA_CORE_CPU_SMALL_GEMM_INL_H_
#undef LINTRA_CORE_CPU_SMALL_GEMM_INL_H_
#else
#define LINTRA_CORE_CPU_SMALL_GEMM_INL_H_
#endif

#include <hwy/highway.h>

#include <algorithm>
#include <cstdint>

HWY_BEFORE_NAMESPACE();
namespace lintra::kernels::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using small_gemm::kPad;

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL || HWY_ARCH_ARM_A64
constexpr int kTileRows = 8, kMaxTileVectors = 3;  // 32 vector registers: 24 accumulators
#else
constexpr int kTileRows = 6, kMaxTileVectors = 2;  // 16 vector registers: 12 accumulators
#endif
constexpr int64_t kRowBlock = kTileRows;
static_assert(kPad % hn::MaxLanes(hn::ScalableTag<float>()) == 0);

// One term of a product: a(r, k) = a[r·ar + k·ak]; row k of the right operand starts at b + k·ldb.
template <typename T> struct Term {
  const T* a = nullptr;
  int64_t ar = 0, ak = 0;
  const T* b = nullptr;
  int64_t ldb = 0;
};

// t shifted by `rows` rows of a and `cols` columns of b.
template <typename T> HWY_INLINE Term<T> shifted(Term<T> t, int64_t rows, int64_t cols) {
  if (t.a != nullptr) {
    t.a += rows * t.ar;
    t.b += cols;
  }
  return t;
}

// acc[r][w] += Σ_{k0≤k<k1} t.a(r, k) · (vector w of row k of t.b).
template <int R, int W, class D, typename T = hn::TFromD<D>>
HWY_INLINE void accumulate(D d, hn::Vec<D> (&acc)[R][W], const Term<T>& t, int64_t k0, int64_t k1) {
  const int64_t L = int64_t(hn::Lanes(d));
  const T* a = t.a + k0 * t.ak;
  const T* b = t.b + k0 * t.ldb;
  for (int64_t k = k0; k < k1; ++k, a += t.ak, b += t.ldb) {
    hn::Vec<D> bv[W];
#pragma GCC unroll 4
    for (int w = 0; w < W; ++w) bv[w] = hn::LoadU(d, b + w * L);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const hn::Vec<D> s = hn::Set(d, a[r * t.ar]);
#pragma GCC unroll 4
      for (int w = 0; w < W; ++w) acc[r][w] = hn::MulAdd(s, bv[w], acc[r][w]);
    }
  }
}

// R rows × W vectors of c (row stride ldc) = [c +] x-term over k < kx + y-term over [ky0, ky1).
template <int R, int W, class D, typename T = hn::TFromD<D>>
HWY_INLINE void tile(D d, T* HWY_RESTRICT c, int64_t ldc, bool add_to_c, const Term<T>& x, int64_t kx,
                     const Term<T>& y, int64_t ky0, int64_t ky1) {
  const int64_t L = int64_t(hn::Lanes(d));
  hn::Vec<D> acc[R][W];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int w = 0; w < W; ++w) acc[r][w] = add_to_c ? hn::LoadU(d, c + r * ldc + w * L) : hn::Zero(d);
  accumulate<R, W>(d, acc, x, 0, kx);
  if (y.a != nullptr) accumulate<R, W>(d, acc, y, ky0, ky1);
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int w = 0; w < W; ++w) hn::StoreU(acc[r][w], d, c + r * ldc + w * L);
}

// R rows (R ≤ kTileRows), output vectors [v0, v1): column groups of at most kMaxTileVectors vectors,
// balanced (8 vectors → 2 + 2 + 2 + 2 or 3 + 3 + 2, 4 → 2 + 2), one register tile each.
template <int R, class D, typename T = hn::TFromD<D>>
HWY_INLINE void row_tiles(D d, T* c, int64_t ldc, bool add_to_c, const Term<T>& x, int64_t kx, const Term<T>& y,
                          int64_t ky0, int64_t ky1, int64_t v0, int64_t v1) {
  const int64_t L = int64_t(hn::Lanes(d));
  const int64_t groups = (v1 - v0 + kMaxTileVectors - 1) / kMaxTileVectors;
  int64_t v = v0;
  for (int64_t g = groups; g > 0; --g) {
    const int64_t w = (v1 - v + g - 1) / g;
    T* cv = c + v * L;
    const Term<T> xs = shifted(x, 0, v * L), ys = shifted(y, 0, v * L);
    if (kMaxTileVectors >= 3 && w == 3) tile<R, (kMaxTileVectors >= 3 ? 3 : 1)>(d, cv, ldc, add_to_c, xs, kx, ys, ky0, ky1);
    else if (w == 2) tile<R, 2>(d, cv, ldc, add_to_c, xs, kx, ys, ky0, ky1);
    else tile<R, 1>(d, cv, ldc, add_to_c, xs, kx, ys, ky0, ky1);
    v += w;
  }
}

// One row block of `rows` ≤ kRowBlock rows: row_tiles with R = rows (a full block, or the remainder).
template <int R = kTileRows, class D, typename T = hn::TFromD<D>>
HWY_NOINLINE void row_block(D d, int64_t rows, T* c, int64_t ldc, bool add_to_c, const Term<T>& x, int64_t kx,
                            const Term<T>& y, int64_t ky0, int64_t ky1, int64_t v0, int64_t v1) {
  if constexpr (R > 1) {
    if (rows < R) return row_block<R - 1>(d, rows, c, ldc, add_to_c, x, kx, y, ky0, ky1, v0, v1);
  }
  row_tiles<R>(d, c, ldc, add_to_c, x, kx, y, ky0, ky1, v0, v1);
}

// The rows of the next block when `rows` rows remain for `blocks` blocks of at most kRowBlock: as equal
// as possible (32 rows in blocks of ≤ 6: 5, 5, 5, 5, 6, 6), so that no block is a narrow remainder.
inline int64_t balanced_rows(int64_t rows, int64_t blocks) { return rows / blocks; }

// Which part of the y-term's left operand is non-zero: all, its lower (k ≤ r) or upper (k ≥ r) triangle.
enum class Tri { none, lower, upper };

// c (rows × cols) = [c +] x.a (rows × kx)·x.b + y.a (rows × ky)·y.b, skipping the zero triangle of y.a:
// the row block [r, r + R) runs k over [0, r + R) (lower) or [r, ky) (upper) only.
template <class D, typename T = hn::TFromD<D>>
void gemm(D d, T* c, int64_t ldc, int64_t rows, int64_t cols, bool add_to_c, const Term<T>& x, int64_t kx,
          const Term<T>& y = {}, int64_t ky = 0, Tri tri = Tri::none) {
  const int64_t nv = cols / int64_t(hn::Lanes(d)), blocks = (rows + kRowBlock - 1) / kRowBlock;
  for (int64_t i = 0, r = 0, R = 0; i < blocks; ++i, r += R) {
    R = balanced_rows(rows - r, blocks - i);
    const int64_t k0 = tri == Tri::upper ? std::min(r, ky) : 0;
    const int64_t k1 = tri == Tri::lower ? std::min(ky, r + R) : ky;
    row_block(d, R, c + r * ldc, ldc, add_to_c, shifted(x, r, 0), kx, shifted(y, r, 0), k0, k1, 0, nv);
  }
}

// s (rows × C, row stride C) = a (rows × K, row stride lda)·bt (K × C), keeping the lower (j ≤ i)
// or upper (j ≥ i) triangle: each row block computes only the vectors that reach its triangle and
// zeroes the other side within them; entries outside those vectors are left unset (the
// triangular products of gemm() never read them).
template <class D, typename T = hn::TFromD<D>>
void masked_scores(D d, T* s, int64_t C, int64_t rows, const T* a, int64_t lda, const T* bt, int64_t K, bool lower) {
  const int64_t L = int64_t(hn::Lanes(d));
  const hn::Vec<D> lane = hn::Iota(d, 0);
  const Term<T> x{a, lda, 1, bt, C};
  const int64_t nv = C / L, blocks = (rows + kRowBlock - 1) / kRowBlock;
  for (int64_t i = 0, r = 0, R = 0; i < blocks; ++i, r += R) {
    R = balanced_rows(rows - r, blocks - i);
    // The vectors that reach the triangle, widened to whole register tiles where C allows.
    int64_t v0 = lower ? 0 : r / L, v1 = lower ? (r + R + L - 1) / L : nv;
    const int64_t widen = (kMaxTileVectors - (v1 - v0) % kMaxTileVectors) % kMaxTileVectors;
    if (lower) v1 = std::min(nv, v1 + widen);
    else v0 = std::max<int64_t>(0, v0 - widen);
    row_block(d, R, s + r * C, C, false, shifted(x, r, 0), K, Term<T>{}, 0, 0, v0, v1);
    for (int64_t row_i = r; row_i < r + R; ++row_i) {
      T* si = s + row_i * C;
      const int64_t diag = row_i / L;  // the vector holding the diagonal
      const hn::Vec<D> col = hn::Add(lane, hn::Set(d, T(diag * L))), row = hn::Set(d, T(row_i));
      const auto outside = lower ? hn::Gt(col, row) : hn::Lt(col, row);
      hn::StoreU(hn::IfThenZeroElse(outside, hn::LoadU(d, si + diag * L)), d, si + diag * L);
      for (int64_t w = lower ? diag + 1 : v0; w < (lower ? v1 : diag); ++w) hn::StoreU(hn::Zero(d), d, si + w * L);
    }
  }
}

}  // namespace lintra::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
