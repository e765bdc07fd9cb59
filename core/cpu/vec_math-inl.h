// cpu/vec_math-inl.h — what the row and elementwise kernels share over Highway's vector ops (a
// per-target header: include it after hwy/foreach_target.h and
// hwy/highway.h): partial vectors at the end of a row, reductions with independent accumulators, and
// full-range exp/log built on Highway's contrib math (hwy/contrib/math/math-inl.h, 1.0.3).
//
//   load_partial(d, p, n, fill)  lanes 0…n−1 from p, the rest `fill` (n < Lanes): through a stack
//                                buffer, so nothing past p + n is read and every lane of a row goes
//                                through the same vector formula as the full vectors (no scalar tail);
//   store_partial(d, v, p, n)    lanes 0…n−1 to p;
//   exp_bounded(d, x)            eˣ where it cannot overflow (the softmax's x − max ≤ 0), NaN kept:
//                                float32 by the scalar kernels' own formula (scalar_ops.h exp_f32,
//                                ≈ 2 ulp), float64 by Highway's Exp (1 ulp);
//   exp_full(d, x)               eˣ for every x: exp_bounded made total (overflow gives +inf; Highway's
//                                own Exp maps NaN to 0 and wraps above its valid range);
//   log_full(d, x)               log x (4 ulp) with log 0 = −inf, log of x < 0 or NaN = NaN, log +inf = +inf;
//   sigmoid_v(d, x), tanh_v(d, x) σ x = 1/(1 + e^{−x}) by exp_bounded, tanh x by Highway's Tanh; NaN kept;
//   normal_cdf_v(d, x, &gauss)   Φ x, the standard normal CDF, and e^{−x²/2} (float32, for gelu).
// Cost: exp about 17–22 vector ops per vector (range reduction, a degree-6 polynomial, scale by
// 2ⁿ, NaN and overflow blends); log about 25.

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
  // n < Lanes by contract; the bound also tells GCC the copy fits (else -Wstringop-overflow at 1 lane).
  std::memcpy(buf, p, std::min(size_t(n), hn::MaxLanes(d)) * sizeof(T));
  return hn::Load(d, buf);
}

template <class D, typename T = hn::TFromD<D>>
HWY_INLINE void store_partial(D d, hn::Vec<D> v, T* p, int64_t n) {
  HWY_ALIGN T buf[hn::MaxLanes(D())];
  hn::Store(v, d, buf);
  std::memcpy(p, buf, std::min(size_t(n), hn::MaxLanes(d)) * sizeof(T));
}

// eˣ in float32 by exactly the steps of core/scalar_ops.h exp_f32 (the scalar kernels' formula):
// x clamped to ±88.376, Cody–Waite reduction x = n·ln2 + r (n rounded by the 1.5·2²³ trick), a
// degree-6 Cephes polynomial for eʳ, and 2ⁿ built in the exponent bits; about 2 ulp, 0 below −88.38.
// About 17 vector ops, against about 22 for Highway's Exp (whose two-step 2ⁿ covers a range that a
// clamped argument does not need).
template <class D> HWY_INLINE hn::Vec<D> exp_cephes_f32(D d, hn::Vec<D> x) {
  using V = hn::Vec<D>;
  const hn::Rebind<int32_t, D> di;
  const V bound = hn::Set(d, 88.3762626647949f), magic = hn::Set(d, 12582912.0f), one = hn::Set(d, 1.0f);
  x = hn::Min(hn::Max(x, hn::Neg(bound)), bound);
  const V n = hn::Sub(hn::MulAdd(x, hn::Set(d, 1.44269504088896341f), magic), magic);
  V r = hn::NegMulAdd(n, hn::Set(d, 0.693359375f), x);
  r = hn::NegMulAdd(n, hn::Set(d, -2.12194440e-4f), r);
  V p = hn::Set(d, 1.9875691500e-4f);
  p = hn::MulAdd(p, r, hn::Set(d, 1.3981999507e-3f));
  p = hn::MulAdd(p, r, hn::Set(d, 8.3334519073e-3f));
  p = hn::MulAdd(p, r, hn::Set(d, 4.1665795894e-2f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.6666665459e-1f));
  p = hn::MulAdd(p, r, hn::Set(d, 5.0000001201e-1f));
  p = hn::MulAdd(hn::Mul(p, r), r, hn::Add(r, one));
  const auto e = hn::ShiftLeft<23>(hn::Add(hn::ConvertTo(di, n), hn::Set(di, 127)));
  return hn::Mul(p, hn::BitCast(d, e));
}

// eˣ for arguments that cannot overflow (x ≤ 88 in float32, ≤ 700 in float64: the softmax's x − max
// ≤ 0), NaN kept: float32 by exp_cephes_f32, float64 by Highway's Exp (1 ulp, 0 below −1000).
template <class D> HWY_INLINE hn::Vec<D> exp_bounded(D d, hn::Vec<D> x) {
  using T = hn::TFromD<D>;
  if constexpr (sizeof(T) == 4) return hn::IfThenElse(hn::IsNaN(x), x, exp_cephes_f32(d, x));
  else return hn::IfThenElse(hn::IsNaN(x), x, hn::Exp(d, hn::Min(x, hn::Set(d, T(700)))));
}

template <class D> HWY_INLINE hn::Vec<D> exp_full(D d, hn::Vec<D> x) {
  using T = hn::TFromD<D>;
  // exp_bounded clamps its argument (float32 at 88.376, short of the overflow at 88.72; float64 at
  // 700, where Highway's Exp stops being valid at 706, short of 709.78): float32 lanes above 88 take
  // Highway's Exp and those above 88.72 become +inf; (rarely) float64 lanes above 700 are computed as
  // (e^{x/2})², which overflows to +inf where eˣ does.
  hn::Vec<D> y = exp_bounded(d, x);
  if constexpr (sizeof(T) == 4) {
    // (rarely) lanes above 88: Highway's Exp, valid up to 104, for the top of the range that
    // exp_cephes_f32's clamp cuts off (88.376 < x ≤ 88.72), then +inf above the overflow.
    const auto large = hn::Gt(x, hn::Set(d, 88.0f));
    if (!hn::AllFalse(d, large)) y = hn::IfThenElse(large, hn::Exp(d, hn::Min(x, hn::Set(d, 100.0f))), y);
    return hn::IfThenElse(hn::Gt(x, hn::Set(d, 88.72283935546875f)), hn::Set(d, std::numeric_limits<T>::infinity()),
                          y);
  } else {
    const auto large = hn::Gt(x, hn::Set(d, T(700)));
    if (!hn::AllFalse(d, large)) {
      const hn::Vec<D> h = hn::Exp(d, hn::Mul(hn::Min(x, hn::Set(d, T(1000))), hn::Set(d, T(0.5))));
      y = hn::IfThenElse(large, hn::Mul(h, h), y);
    }
    return y;
  }
}

// σ(x) = 1 / (1 + e^{−x}) with exp_bounded's clamp (as scalar::sigmoid's exp_f32), NaN kept.
template <class D> HWY_INLINE hn::Vec<D> sigmoid_v(D d, hn::Vec<D> x) {
  const hn::Vec<D> one = hn::Set(d, hn::TFromD<D>(1));
  return hn::Div(one, hn::Add(one, exp_bounded(d, hn::Neg(x))));
}

// a·a − h exactly, h = fl(a·a) (Dekker: a split into two 12-bit halves, whose products are exact), so
// every target gets the same residual whether or not it has FMA (SSE4 and SSSE3 have none). The file
// that uses it is compiled with -ffp-contract=off (core/CMakeLists.txt): a multiply GCC fused into the
// next subtraction would break the split.
template <class D> HWY_INLINE hn::Vec<D> square_error(D d, hn::Vec<D> a, hn::Vec<D> h) {
  const hn::Vec<D> c = hn::Mul(a, hn::Set(d, 4097.0f));
  const hn::Vec<D> hi = hn::Sub(c, hn::Sub(c, a)), lo = hn::Sub(a, hi);
  return hn::Add(hn::Add(hn::Sub(hn::Mul(hi, hi), h), hn::Mul(hn::Add(hi, hi), lo)), hn::Mul(lo, lo));
}

// Φ(x) = ½·erfc(−x/√2), the standard normal CDF, in float32, and *gauss = e^{−x²/2} (gelu's forward
// needs Φ, its backward Φ and φ = e^{−x²/2}/√(2π)). With z = |x|/√2 and t = 2/(2 + z),
// erfc(z) = t·e^{−z²}·e^{P(t)}, P of degree 8 fitted by tools/fit_normal_cdf.py (Chebyshev
// interpolation of log(erfc(z)/t) + z² on z ∈ [0, 10.5]); e^{−z²} = e^{−x²/2} with x² split exactly
// into h + l (square_error), as e^{−h/2}·(1 − l/2), so the large argument adds no rounding. Φ =
// erfc/2 below 0 and 1 − erfc/2 above, so neither tail cancels: worst relative error 5.9e-7 on
// [−10, 10] (the fit script simulates these float32 steps); Φ = 0 below −14 (under float32's
// subnormals), 1 above 14, and e^{−x²/2} = 0 beyond ±14; NaN kept. Cost: two exps, a degree-8
// Horner, one division, the split: about 65 vector ops.
template <class D> HWY_INLINE hn::Vec<D> normal_cdf_v(D d, hn::Vec<D> x, hn::Vec<D>* gauss) {
  using V = hn::Vec<D>;
  static constexpr float kP[9] = {-1.2651978731155396f, 0.9930261969566345f,  0.4392849802970886f,
                                  -0.23774249851703644f, 0.8597149848937988f,  -1.797247052192688f,
                                  1.4924328327178955f,   -0.5653154850006104f, 0.0810437873005867f};
  const V half = hn::Set(d, 0.5f), one = hn::Set(d, 1.0f), cap = hn::Set(d, 14.0f);
  const V ax = hn::Min(hn::Abs(x), cap);  // NaN lanes are set back to x at the end
  const V t = hn::Div(hn::Set(d, 2.0f), hn::MulAdd(ax, hn::Set(d, 0.70710678118654752f), hn::Set(d, 2.0f)));
  V p = hn::Set(d, kP[8]);
  for (int k = 7; k >= 0; --k) p = hn::MulAdd(p, t, hn::Set(d, kP[k]));
  const V h = hn::Mul(ax, ax), l = square_error(d, ax, h);
  const V g = hn::Mul(exp_bounded(d, hn::Neg(hn::Mul(half, h))), hn::NegMulAdd(half, l, one));
  const V half_erfc = hn::Mul(hn::Mul(hn::Mul(half, t), g), exp_bounded(d, p));
  V cdf = hn::IfThenElse(hn::Lt(x, hn::Zero(d)), half_erfc, hn::Sub(one, half_erfc));
  cdf = hn::IfThenElseZero(hn::Ge(x, hn::Neg(cap)), cdf);
  *gauss = hn::IfThenElseZero(hn::Lt(hn::Abs(x), cap), g);  // 0 where e^{−x²/2} < 1e-42 (and at ±inf)
  cdf = hn::IfThenElse(hn::IsNaN(x), x, cdf);
  return cdf;
}

// tanh x by Highway's Tanh (float32 about 4 ulp), NaN kept (Highway's maps it elsewhere).
template <class D> HWY_INLINE hn::Vec<D> tanh_v(D d, hn::Vec<D> x) {
  return hn::IfThenElse(hn::IsNaN(x), x, hn::Tanh(d, x));
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
