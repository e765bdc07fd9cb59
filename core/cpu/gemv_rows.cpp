// cpu/gemv_rows.cpp — simd::gemv_rows_f32 and simd::gemv_rows_bf16 (core/host_simd.h) over Highway,
// compiled for every x86 target (SSSE3, SSE4, AVX2, AVX-512; scalar as the fallback); HWY_DYNAMIC_DISPATCH
// picks the best per call. Per group of four weight rows and per batch row b: four vector accumulators run
// along `in` (a partial last vector through cpu/vec_math-inl.h load_partial, zero-filled), then one
// horizontal sum each. Cost: 2·B·rows·in FLOPs; for batch 1 the weights' bytes dominate (memory-bound
// once W outgrows the cache): 4·rows·in bytes in float32, half that in bf16, whose lanes are widened
// to float32 exactly on load (zero-extend to 32 bits, shift left 16) and multiplied in float32.
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

// Weights read as float32: float32 as they are, bf16 (raw 16-bit patterns) widened exactly.
HWY_INLINE V load_w(D d, const float* p) { return hn::LoadU(d, p); }
HWY_INLINE V load_w_partial(D d, const float* p, int64_t m) { return load_partial(d, p, m, 0.0f); }

HWY_INLINE V widen_bf16(D d, hn::Vec<hn::Rebind<uint16_t, D>> bits) {
  const hn::RebindToUnsigned<D> du32;
  return hn::BitCast(d, hn::ShiftLeft<16>(hn::PromoteTo(du32, bits)));
}
HWY_INLINE V load_w(D d, const uint16_t* p) { return widen_bf16(d, hn::LoadU(hn::Rebind<uint16_t, D>(), p)); }
HWY_INLINE V load_w_partial(D d, const uint16_t* p, int64_t m) {
  return widen_bf16(d, load_partial(hn::Rebind<uint16_t, D>(), p, m, uint16_t(0)));
}

// Four rows r … r + 3 of W against one x row: four named accumulators (an array of vectors would be
// kept on the stack), whole vectors in the loop, the partial last one (zero-filled) after it.
template <typename W_T>
HWY_INLINE void dot_four_rows(const W_T* W, const float* bias, const float* xb, float* yb, int64_t in, int64_t r) {
  const D d;
  const int64_t L = int64_t(hn::Lanes(d));
  const W_T *w0 = W + r * in, *w1 = w0 + in, *w2 = w1 + in, *w3 = w2 + in;
  V a0 = hn::Zero(d), a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  for (; i + L <= in; i += L) {
    const V xv = hn::LoadU(d, xb + i);
    a0 = hn::MulAdd(load_w(d, w0 + i), xv, a0);
    a1 = hn::MulAdd(load_w(d, w1 + i), xv, a1);
    a2 = hn::MulAdd(load_w(d, w2 + i), xv, a2);
    a3 = hn::MulAdd(load_w(d, w3 + i), xv, a3);
  }
  if (i < in) {
    const int64_t m = in - i;
    const V xv = load_partial(d, xb + i, m, 0.0f);
    a0 = hn::MulAdd(load_w_partial(d, w0 + i, m), xv, a0);
    a1 = hn::MulAdd(load_w_partial(d, w1 + i, m), xv, a1);
    a2 = hn::MulAdd(load_w_partial(d, w2 + i, m), xv, a2);
    a3 = hn::MulAdd(load_w_partial(d, w3 + i, m), xv, a3);
  }
  yb[r] = hn::GetLane(hn::SumOfLanes(d, a0)) + bias[r];
  yb[r + 1] = hn::GetLane(hn::SumOfLanes(d, a1)) + bias[r + 1];
  yb[r + 2] = hn::GetLane(hn::SumOfLanes(d, a2)) + bias[r + 2];
  yb[r + 3] = hn::GetLane(hn::SumOfLanes(d, a3)) + bias[r + 3];
}

// One row r of W against one x row (the rows left over after the groups of four).
template <typename W_T>
HWY_INLINE void dot_row(const W_T* W, const float* bias, const float* xb, float* yb, int64_t in, int64_t r) {
  const D d;
  const int64_t L = int64_t(hn::Lanes(d));
  const W_T* w = W + r * in;
  V a = hn::Zero(d);
  int64_t i = 0;
  for (; i + L <= in; i += L) a = hn::MulAdd(load_w(d, w + i), hn::LoadU(d, xb + i), a);
  if (i < in) a = hn::MulAdd(load_w_partial(d, w + i, in - i), load_partial(d, xb + i, in - i, 0.0f), a);
  yb[r] = hn::GetLane(hn::SumOfLanes(d, a)) + bias[r];
}

template <typename W_T>
HWY_INLINE void gemv_rows(const W_T* W, const float* bias, const float* x, float* y, int64_t B, int64_t in,
                          int64_t rows, int64_t r0, int64_t r1) {
  int64_t r = r0;
  for (; r + 4 <= r1; r += 4)
    for (int64_t b = 0; b < B; ++b) dot_four_rows(W, bias, x + b * in, y + b * rows, in, r);
  for (; r < r1; ++r)
    for (int64_t b = 0; b < B; ++b) dot_row(W, bias, x + b * in, y + b * rows, in, r);
}

}  // namespace

void GemvRowsF32(const float* W, const float* bias, const float* x, float* y, int64_t B, int64_t in, int64_t rows,
                 int64_t r0, int64_t r1) {
  gemv_rows(W, bias, x, y, B, in, rows, r0, r1);
}

void GemvRowsBf16(const uint16_t* W, const float* bias, const float* x, float* y, int64_t B, int64_t in,
                  int64_t rows, int64_t r0, int64_t r1) {
  gemv_rows(W, bias, x, y, B, in, rows, r0, r1);
}

}  // namespace lintra::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace lintra {
namespace kernels::cpu {
HWY_EXPORT(GemvRowsF32);
HWY_EXPORT(GemvRowsBf16);
namespace {
void dispatch_gemv_rows(const float* W, const float* bias, const float* x, float* y, int64_t B, int64_t in,
                        int64_t rows, int64_t r0, int64_t r1) {
  HWY_DYNAMIC_DISPATCH(GemvRowsF32)(W, bias, x, y, B, in, rows, r0, r1);
}
void dispatch_gemv_rows_bf16(const uint16_t* W, const float* bias, const float* x, float* y, int64_t B, int64_t in,
                             int64_t rows, int64_t r0, int64_t r1) {
  HWY_DYNAMIC_DISPATCH(GemvRowsBf16)(W, bias, x, y, B, in, rows, r0, r1);
}
}  // namespace
}  // namespace kernels::cpu

void simd::gemv_rows_f32(const float* W, const float* bias, const float* x, float* y, int64_t B, int64_t in,
                         int64_t rows, int64_t r0, int64_t r1) {
  kernels::cpu::dispatch_gemv_rows(W, bias, x, y, B, in, rows, r0, r1);
}

void simd::gemv_rows_bf16(const uint16_t* W, const float* bias, const float* x, float* y, int64_t B, int64_t in,
                          int64_t rows, int64_t r0, int64_t r1) {
  kernels::cpu::dispatch_gemv_rows_bf16(W, bias, x, y, B, in, rows, r0, r1);
}

}  // namespace lintra
#endif  // HWY_ONCE
