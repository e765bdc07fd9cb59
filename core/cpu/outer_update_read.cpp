// cpu/outer_update_read.cpp — simd::outer_update_read (core/host_simd.h) over Highway, compiled for
// every x86 target (SSSE3, SSE4, AVX2, AVX-512; scalar as the fallback); HWY_DYNAMIC_DISPATCH picks
// the best per call. One step of a linear-attention state, the recurrent engine's per-head work:
//
//   S (E × M) += a·bᵀ,   out (M) = Sᵀ·c        in one pass over S:
//   for e ascending: S[e, :] += a[e]·b,  out += c[e]·S[e, :]
//
// Columns go in chunks of up to four vectors whose `out` accumulators stay in registers across the
// E rows (a partial last vector through cpu/vec_math-inl.h load_at / store_at). Cost: 2·E·M
// multiply-adds over one read and one write of S (4·E·M bytes each): at E = M = 32 a 4 KB state per
// head that stays in L1/L2 from token to token.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/cpu/outer_update_read.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "core/cpu/vec_math-inl.h"

#ifndef LINTRA_CORE_CPU_OUTER_UPDATE_READ_ONCE_
#define LINTRA_CORE_CPU_OUTER_UPDATE_READ_ONCE_
#include <algorithm>

#include "core/host_simd.h"
#endif

// --- per-target parts ------------------------------------------------------------------------------
HWY_BEFORE_NAMESPACE();
namespace lintra::kernels::cpu::HWY_NAMESPACE {
namespace {

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;
constexpr int64_t kChunkVectors = 4;

// Columns [m0, m0 + W·L) of every row (the last vector cut to `last` lanes).
template <int64_t W>
HWY_INLINE void chunk(float* S, const float* a, const float* b, const float* c, float* out, int64_t E, int64_t M,
                      int64_t m0, int64_t last) {
  const D d;
  const int64_t L = int64_t(hn::Lanes(d));
  auto width = [&](int64_t w) { return w + 1 == W ? last : L; };
  V bv[W], acc[W];
  for (int64_t w = 0; w < W; ++w) {
    bv[w] = load_at(d, b, m0 + w * L, width(w));
    acc[w] = hn::Zero(d);
  }
  for (int64_t e = 0; e < E; ++e) {
    float* row = S + e * M + m0;
    const V ae = hn::Set(d, a[e]), ce = hn::Set(d, c[e]);
    for (int64_t w = 0; w < W; ++w) {
      const V s = hn::MulAdd(ae, bv[w], load_at(d, row, w * L, width(w)));
      store_at(d, s, row, w * L, width(w));
      acc[w] = hn::MulAdd(ce, s, acc[w]);
    }
  }
  for (int64_t w = 0; w < W; ++w) store_at(d, acc[w], out, m0 + w * L, width(w));
}

}  // namespace

void OuterUpdateRead(float* S, const float* a, const float* b, const float* c, float* out, int64_t E, int64_t M) {
  const D d;
  const int64_t L = int64_t(hn::Lanes(d));
  for (int64_t m0 = 0; m0 < M; m0 += kChunkVectors * L) {
    const int64_t n = std::min(M - m0, kChunkVectors * L), vectors = (n + L - 1) / L, last = n - (vectors - 1) * L;
    switch (vectors) {
      case 1: chunk<1>(S, a, b, c, out, E, M, m0, last); break;
      case 2: chunk<2>(S, a, b, c, out, E, M, m0, last); break;
      case 3: chunk<3>(S, a, b, c, out, E, M, m0, last); break;
      default: chunk<4>(S, a, b, c, out, E, M, m0, last); break;
    }
  }
}

}  // namespace lintra::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace lintra {
namespace kernels::cpu {
HWY_EXPORT(OuterUpdateRead);
namespace {
void dispatch_outer_update_read(float* S, const float* a, const float* b, const float* c, float* out, int64_t E,
                                int64_t M) {
  HWY_DYNAMIC_DISPATCH(OuterUpdateRead)(S, a, b, c, out, E, M);
}
}  // namespace
}  // namespace kernels::cpu

void simd::outer_update_read(float* S, const float* a, const float* b, const float* c, float* out, int64_t E,
                             int64_t M) {
  if (M <= 0) return;
  if (E <= 0) {
    std::fill(out, out + M, 0.0f);
    return;
  }
  kernels::cpu::dispatch_outer_update_read(S, a, b, c, out, E, M);
}

}  // namespace lintra
#endif  // HWY_ONCE
