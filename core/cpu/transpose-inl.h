// cpu/transpose-inl.h — matrix transposes in registers, written once over Highway's vector ops (a
// per-target header, like cpu/small_gemm-inl.h). The causal product (cpu/causal_product.cpp) reads
// transposed copies of its chunks and of a state as the row-major right operand of its products.
//
// One L×L tile (L = the target's lanes) is loaded as L vectors and transposed in two stages:
//   1. within each 128-bit block, a P×P transpose of every group of P rows (P = 4 floats or 2
//      doubles per block): interleaves of lanes, then (float) of lane pairs;
//   2. across blocks, an (L/P)×(L/P) transpose of whole blocks: halves (ConcatLowerLower /
//      ConcatUpperUpper) and, with 4 blocks (AVX-512), adjacent blocks (OddEvenBlocks of a
//      SwapAdjacentBlocks).
// Then row j·P… of the result is stored. Cost: L loads, L stores and about L·log₂L shuffles per L²
// elements (8×8 floats on AVX2: 24 shuffles), against one load and one store per element scalar.
// The scalar target (L = 1) copies.

#if defined(LINTRA_CORE_CPU_TRANSPOSE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef LINTRA_CORE_CPU_TRANSPOSE_INL_H_
#undef LINTRA_CORE_CPU_TRANSPOSE_INL_H_
#else
#define LINTRA_CORE_CPU_TRANSPOSE_INL_H_
#endif

#include <hwy/highway.h>

#include <cstdint>

HWY_BEFORE_NAMESPACE();
namespace lintra::kernels::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR  // the scalar target has no shuffles (and needs none: L = 1)
// Stage 1: v[g·P + i] (row g·P + i) becomes v[g·P + j] = in every block b, column b·P + j of rows g·P….
template <class D, typename T = hn::TFromD<D>, size_t L = hn::MaxLanes(D())>
HWY_INLINE void transpose_within_blocks(D d, hn::Vec<D> (&v)[L]) {
  if constexpr (sizeof(T) == 8) {
    for (size_t g = 0; g < L; g += 2) {
      const hn::Vec<D> a = v[g], b = v[g + 1];
      v[g] = hn::InterleaveLower(d, a, b);
      v[g + 1] = hn::InterleaveUpper(d, a, b);
    }
  } else {
    const hn::Repartition<double, D> dd;
    for (size_t g = 0; g < L; g += 4) {
      const hn::Vec<D> t0 = hn::InterleaveLower(d, v[g], v[g + 1]), t1 = hn::InterleaveUpper(d, v[g], v[g + 1]);
      const hn::Vec<D> t2 = hn::InterleaveLower(d, v[g + 2], v[g + 3]), t3 = hn::InterleaveUpper(d, v[g + 2], v[g + 3]);
      v[g] = hn::BitCast(d, hn::InterleaveLower(dd, hn::BitCast(dd, t0), hn::BitCast(dd, t2)));
      v[g + 1] = hn::BitCast(d, hn::InterleaveUpper(dd, hn::BitCast(dd, t0), hn::BitCast(dd, t2)));
      v[g + 2] = hn::BitCast(d, hn::InterleaveLower(dd, hn::BitCast(dd, t1), hn::BitCast(dd, t3)));
      v[g + 3] = hn::BitCast(d, hn::InterleaveUpper(dd, hn::BitCast(dd, t1), hn::BitCast(dd, t3)));
    }
  }
}

// Stage 2 for NB blocks per vector: x[g] (block b = rows of group g, columns of group b) becomes
// x[b] = block g of row group b, i.e. the NB×NB matrix of blocks transposed.
template <size_t NB, class D> HWY_INLINE void transpose_blocks(D d, hn::Vec<D> (&x)[NB]) {
  if constexpr (NB == 2) {
    const hn::Vec<D> a = x[0], b = x[1];
    x[0] = hn::ConcatLowerLower(d, b, a);
    x[1] = hn::ConcatUpperUpper(d, b, a);
  } else if constexpr (NB == 4) {
    hn::Vec<D> z[4];
    for (size_t g = 0; g < 2; ++g) {  // swap the off-diagonal 2×2 quadrants of blocks (256-bit halves)
      z[g] = hn::ConcatLowerLower(d, x[g + 2], x[g]);
      z[g + 2] = hn::ConcatUpperUpper(d, x[g + 2], x[g]);
    }
    for (size_t g = 0; g < 4; g += 2) {  // transpose each quadrant (adjacent blocks)
      x[g] = hn::OddEvenBlocks(hn::SwapAdjacentBlocks(z[g + 1]), z[g]);
      x[g + 1] = hn::OddEvenBlocks(z[g + 1], hn::SwapAdjacentBlocks(z[g]));
    }
  }
}

#endif  // HWY_TARGET != HWY_SCALAR

// dst (L × L, row stride ldd) = srcᵀ for the L × L tile at src (row stride lds).
template <class D, typename T = hn::TFromD<D>>
HWY_INLINE void transpose_tile(D d, const T* src, int64_t lds, T* dst, int64_t ldd) {
  constexpr size_t L = hn::MaxLanes(D());
#if HWY_TARGET == HWY_SCALAR
  static_assert(L == 1);
  (void)d;
  (void)lds;
  (void)ldd;
  dst[0] = src[0];
#else
  {
    constexpr size_t P = 16 / sizeof(T), NB = L / P;  // lanes per 128-bit block, blocks per vector
    hn::Vec<D> v[L];
    for (size_t i = 0; i < L; ++i) v[i] = hn::LoadU(d, src + int64_t(i) * lds);
    transpose_within_blocks(d, v);
    for (size_t j = 0; j < P; ++j) {
      hn::Vec<D> x[NB];
      for (size_t g = 0; g < NB; ++g) x[g] = v[g * P + j];
      transpose_blocks<NB>(d, x);
      for (size_t b = 0; b < NB; ++b) hn::StoreU(x[b], d, dst + int64_t(b * P + j) * ldd);
    }
  }
#endif
}

// dst (cols × rows, row stride ldd) = srcᵀ for src (rows × cols, row stride lds); rows and cols are
// multiples of the lanes.
template <class D, typename T = hn::TFromD<D>>
void transpose(D d, const T* src, int64_t lds, int64_t rows, int64_t cols, T* dst, int64_t ldd) {
  const int64_t L = int64_t(hn::Lanes(d));
  for (int64_t i0 = 0; i0 < rows; i0 += L)
    for (int64_t j0 = 0; j0 < cols; j0 += L) transpose_tile(d, src + i0 * lds + j0, lds, dst + j0 * ldd + i0, ldd);
}

}  // namespace lintra::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
