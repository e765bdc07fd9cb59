// cpu/vec_math-inl.h — what the row and elementwise kernels share over Highway's vector ops (a
// per-target header like cpu/small_gemm-inl.h: include it after hwy/foreach_target.h and
// hwy/highway.h): partial vectors at the end of a row, reductions with independent accumulators, and
// full-range exp/log built on Highway's contrib math (hwy/contrib/math/math-inl.h, 1.0.3).
//
//   load_partial(d, p, n, fill)  lanes 0…n−1 from p, the rest `fill` (n < Lanes): through a stack
//                                buffer, so nothing past p + n is read and every lane of a row goes
//                                through the same vector formula as the full vectors (no scalar tail);
//   store_partial(d, v, p, n)    lanes 0…n−1 to p;
//   exp_full(d, x)               eˣ for every x: Highway's Exp (1 ulp; 0 below −104 in float32,
//                                −1000 in float64), made total: overflow gives +inf and NaN stays
//                                NaN (Highway's own Exp maps NaN to 0 and wraps above its range);
//   log_full(d, x)               log x (4 ulp) with log 0 = −inf, log of x < 0 or NaN = NaN, log +inf = +inf.
// Cost: exp about 20 vector ops per vector (range reduction, a degree-6 polynomial, scale by 2ⁿ);
// log about 25; the extra clamps and blends are 2–4 ops.

#if defined(LINTRA_CORE_CPU_VEC_MATH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef LINTRA_CORE_CPU_VEC_MATH_INL_H_
#undef LINTRA_CORE_CPU_VEC_MATH_INL_H_
#else
#define LINTRA_CORE_CPU_VEC_MATH_INL_H_
#endif

#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

HWY_BEFORE_NAMESPACE();
namespace lintra::kernels::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class D, typename T = hn::TFromD<D>>
HWY_INLINE hn::Vec<D> load_partial(D d, const T* p, int64_t n, T fill) {
  HWY_ALIGN T buf[hn::MaxLanes(D())];
  for (size_t i = 0; i < hn::MaxLanes(d); ++i) buf[i] = fill;
  std::memcpy(buf, p, size_t(n) * sizeof(T));
  return hn::Load(d, buf);
}

template <class D, typename T = hn::TFromD<D>>
HWY_INLINE void store_partial(D d, hn::Vec<D> v, T* p, int64_t n) {
  HWY_ALIGN T buf[hn::MaxLanes(D())];
  hn::Store(v, d, buf);
  std::memcpy(p, buf, size_t(n) * sizeof(T));
}

template <class D> HWY_INLINE hn::Vec<D> exp_full(D d, hn::Vec<D> x) {
  using T = hn::TFromD<D>;
  // Highway's Exp is valid up to +104 (float32: past the overflow at 88.72) and +706 (float64: short
  // of the overflow at 709.78); beyond, its exponent arithmetic wraps. So the argument is clamped to
  // the valid range, float32 lanes above 88.72 become +inf, and (rarely) float64 lanes above 700 are
  // computed as (e^{x/2})², which overflows to +inf where eˣ does.
  const hn::Vec<D> hi = hn::Set(d, T(sizeof(T) == 4 ? 100.0 : 700.0));
  hn::Vec<D> y = hn::Exp(d, hn::Min(x, hi));
  if constexpr (sizeof(T) == 4) {
    y = hn::IfThenElse(hn::Gt(x, hn::Set(d, T(88.72283935546875))), hn::Set(d, std::numeric_limits<T>::infinity()), y);
  } else {
    const auto large = hn::Gt(x, hi);
    if (!hn::AllFalse(d, large)) {
      const hn::Vec<D> h = hn::Exp(d, hn::Mul(hn::Min(x, hn::Set(d, T(1000))), hn::Set(d, T(0.5))));
      y = hn::IfThenElse(large, hn::Mul(h, h), y);
    }
  }
  return hn::IfThenElse(hn::IsNaN(x), x, y);
}

template <class D> HWY_INLINE hn::Vec<D> log_full(D d, hn::Vec<D> x) {
  using T = hn::TFromD<D>;
  const hn::Vec<D> zero = hn::Zero(d), inf = hn::Set(d, std::numeric_limits<T>::infinity());
  const hn::Vec<D> nan = hn::Set(d, std::numeric_limits<T>::quiet_NaN());
  hn::Vec<D> y = hn::Log(d, x);
  y = hn::IfThenElse(hn::Eq(x, zero), hn::Neg(inf), y);
  y = hn::IfThenElse(hn::Eq(x, inf), inf, y);
  return hn::IfThenElse(hn::Or(hn::Lt(x, zero), hn::IsNaN(x)), nan, y);
}

// Σ f(i-th vector) over a row of n elements, f(v) given the i-th vector's offset and lane count;
// four accumulators hide the add latency. The tail vector's unused lanes must contribute 0 (f's job).
template <class D, class F> HWY_INLINE hn::TFromD<D> sum_row(D d, int64_t n, F&& f) {
  const int64_t L = int64_t(hn::Lanes(d));
  hn::Vec<D> a0 = hn::Zero(d), a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  for (; i + 4 * L <= n; i += 4 * L) {
    a0 = hn::Add(a0, f(i, L));
    a1 = hn::Add(a1, f(i + L, L));
    a2 = hn::Add(a2, f(i + 2 * L, L));
    a3 = hn::Add(a3, f(i + 3 * L, L));
  }
  for (; i < n; i += L) a0 = hn::Add(a0, f(i, std::min(L, n - i)));
  return hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(a0, a1), hn::Add(a2, a3))));
}

// Loads the elements [i, i + m) of p (m ≤ Lanes), the missing lanes `fill`.
template <class D, typename T = hn::TFromD<D>>
HWY_INLINE hn::Vec<D> load_at(D d, const T* p, int64_t i, int64_t m, T fill = T(0)) {
  return m == int64_t(hn::Lanes(d)) ? hn::LoadU(d, p + i) : load_partial(d, p + i, m, fill);
}

template <class D, typename T = hn::TFromD<D>>
HWY_INLINE void store_at(D d, hn::Vec<D> v, T* p, int64_t i, int64_t m) {
  if (m == int64_t(hn::Lanes(d))) hn::StoreU(v, d, p + i);
  else store_partial(d, v, p + i, m);
}

}  // namespace lintra::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // include guard (per target)
