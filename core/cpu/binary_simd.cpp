// cpu/binary_simd.cpp — the vector rows of cpu/binary_simd.h, written once over Highway and compiled for
// every x86 target (SSSE3, SSE4, AVX2, AVX-512; scalar as the fallback); HWY_DYNAMIC_DISPATCH picks the
// best one per call. A row's last partial vector goes through the same formula (cpu/vec_math-inl.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/cpu/binary_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "core/cpu/vec_math-inl.h"

#ifndef LINTRA_CORE_CPU_BINARY_SIMD_ONCE_
#define LINTRA_CORE_CPU_BINARY_SIMD_ONCE_
#include "core/cpu/binary_simd.h"
#endif

// --- per-target parts ------------------------------------------------------------------------------
HWY_BEFORE_NAMESPACE();
namespace lintra::kernels::cpu::HWY_NAMESPACE {
namespace {

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

template <int kCode> HWY_INLINE V apply(V x, V y) {
  if constexpr (kCode == 0) return hn::Add(x, y);
  else if constexpr (kCode == 1) return hn::Sub(x, y);
  else if constexpr (kCode == 2) return hn::Mul(x, y);
  else if constexpr (kCode == 3) return hn::Div(x, y);
  else if constexpr (kCode == 4) return hn::IfThenElse(hn::Or(hn::Gt(x, y), hn::IsNaN(x)), x, y);
  else return hn::IfThenElse(hn::Or(hn::Lt(x, y), hn::IsNaN(x)), x, y);
}

// One row with operand strides kAs, kBs ∈ {0 (one value), 1}: whole vectors two at a time without a
// branch, then the last partial vector through a stack buffer (cpu/vec_math-inl.h).
template <int kCode, int kAs, int kBs> void row(const float* a, const float* b, float* out, int64_t n) {
  const D d;
  const int64_t L = int64_t(hn::Lanes(d));
  const V a0 = kAs == 0 ? hn::Set(d, a[0]) : hn::Zero(d), b0 = kBs == 0 ? hn::Set(d, b[0]) : hn::Zero(d);
  const auto A = [&](int64_t i) { return kAs == 0 ? a0 : hn::LoadU(d, a + i); };
  const auto B = [&](int64_t i) { return kBs == 0 ? b0 : hn::LoadU(d, b + i); };
  int64_t i = 0;
  for (; i + 2 * L <= n; i += 2 * L) {
    hn::StoreU(apply<kCode>(A(i), B(i)), d, out + i);
    hn::StoreU(apply<kCode>(A(i + L), B(i + L)), d, out + i + L);
  }
  for (; i + L <= n; i += L) hn::StoreU(apply<kCode>(A(i), B(i)), d, out + i);
  if (i == n) return;
  const int64_t m = n - i;
  const V x = kAs == 0 ? a0 : load_partial(d, a + i, m, 0.0f), y = kBs == 0 ? b0 : load_partial(d, b + i, m, 0.0f);
  store_partial(d, apply<kCode>(x, y), out + i, m);
}

template <int kCode> void row_strides(const float* a, int64_t as, const float* b, int64_t bs, float* out, int64_t n) {
  if (as == 1 && bs == 1) return row<kCode, 1, 1>(a, b, out, n);
  if (as == 1) return row<kCode, 1, 0>(a, b, out, n);
  if (bs == 1) return row<kCode, 0, 1>(a, b, out, n);
  return row<kCode, 0, 0>(a, b, out, n);
}

}  // namespace

void BinaryRowF32(int code, const float* a, int64_t as, const float* b, int64_t bs, float* out, int64_t n) {
  switch (code) {
    case 0: return row_strides<0>(a, as, b, bs, out, n);
    case 1: return row_strides<1>(a, as, b, bs, out, n);
    case 2: return row_strides<2>(a, as, b, bs, out, n);
    case 3: return row_strides<3>(a, as, b, bs, out, n);
    case 4: return row_strides<4>(a, as, b, bs, out, n);
    default: return row_strides<5>(a, as, b, bs, out, n);
  }
}

}  // namespace lintra::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace lintra::kernels::cpu {

HWY_EXPORT(BinaryRowF32);

void binary_row_simd_f32(int code, const float* a, int64_t a_stride, const float* b, int64_t b_stride, float* out,
                         int64_t n) {
  HWY_DYNAMIC_DISPATCH(BinaryRowF32)(code, a, a_stride, b, b_stride, out, n);
}

}  // namespace lintra::kernels::cpu
#endif  // HWY_ONCE
