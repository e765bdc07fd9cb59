// cpu/gemv_rows.cpp — simd::gemv_rows_f32 (core/host_simd.h) over Highway, compiled for every x86 target
// (SSSE3, SSE4, AVX2, AVX-512; scalar as the fallback); HWY_DYNAMIC_DISPATCH picks the best per call.
// Per group of four weight rows and per batch row b: four vector accumulators run along `in` (a partial
// last vector through cpu/vec_math-inl.h load_at, zero-filled), then one horizontal sum each. Cost:
// 2·B·rows·in FLOPs; for batch 1 the weights' bytes dominate (memory-bound once W outgrows the cache).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/cpu/gemv_rows.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "core/cpu/vec_math-inl.h"

#ifndef LINTRA_CORE_CPU_GEMV_ROWS_ONCE_
#define LINTRA_CORE_CPU_GEMV_ROWS_ONCE_
#include "core/host_simd.h"
#endif

// --- per-target parts ------------------------------------------------------------------------------
HWY_BEFORE_NAMESPACE();
namespace lintra::kernels::cpu::HWY_NAMESPACE {
namespace {

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

// Rows r … r + R − 1 (R = 4 or 1) of W against one x row.
template <int R> HWY_INLINE void dot_rows(const float* W, const float* bias, const float* xb, float* yb, int64_t in,
                                          int64_t r) {
  const D d;
  const int64_t L = int64_t(hn::Lanes(d));
  V acc[R];
  for (int k = 0; k < R; ++k) acc[k] = hn::Zero(d);
  for (int64_t i = 0; i < in; i += L) {
    const int64_t m = std::min(L, in - i);
    const V xv = load_at(d, xb, i, m);
    for (int k = 0; k < R; ++k) acc[k] = hn::MulAdd(load_at(d, W + (r + k) * in, i, m), xv, acc[k]);
  }
  for (int k = 0; k < R; ++k) yb[r + k] = hn::GetLane(hn::SumOfLanes(d, acc[k])) + bias[r + k];
}

}  // namespace

void GemvRowsF32(const float* W, const float* bias, const float* x, float* y, int64_t B, int64_t in, int64_t rows,
                 int64_t r0, int64_t r1) {
  int64_t r = r0;
  for (; r + 4 <= r1; r += 4)
    for (int64_t b = 0; b < B; ++b) dot_rows<4>(W, bias, x + b * in, y + b * rows, in, r);
  for (; r < r1; ++r)
    for (int64_t b = 0; b < B; ++b) dot_rows<1>(W, bias, x + b * in, y + b * rows, in, r);
}

}  // namespace lintra::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace lintra {
namespace kernels::cpu {
HWY_EXPORT(GemvRowsF32);
namespace {
void dispatch_gemv_rows(const float* W, const float* bias, const float* x, float* y, int64_t B, int64_t in,
                        int64_t rows, int64_t r0, int64_t r1) {
  HWY_DYNAMIC_DISPATCH(GemvRowsF32)(W, bias, x, y, B, in, rows, r0, r1);
}
}  // namespace
}  // namespace kernels::cpu

void simd::gemv_rows_f32(const float* W, const float* bias, const float* x, float* y, int64_t B, int64_t in,
                         int64_t rows, int64_t r0, int64_t r1) {
  kernels::cpu::dispatch_gemv_rows(W, bias, x, y, B, in, rows, r0, r1);
}

}  // namespace lintra
#endif  // HWY_ONCE
