// cpu/unary_simd.cpp — the vector forms of the transcendental unary ops (core/unary_ops.h) and the
// Highway path of the CPU elementwise kernel that runs them on contiguous float32 (cpu/unary_simd.h).
//
// An op gets a vector form here only where it pays: where its scalar formula calls libm (log, tanh,
// softplus and log σ: log1p, exp), which GCC does not vectorise, or an exp that GCC vectorises only
// for the build's baseline ISA (exp, σ, elu, elu_feature, and the σ of softplus' and log σ's backward: SSE2 in
// the portable build), or erf (gelu and its backward). Each form computes the same expression as
// the op's `fast` / `backward`, with eˣ by scalar_ops.h's own exp_f32 steps (≈ 2 ulp), log, log1p
// and tanh from Highway's contrib math (4, 2 and 4 ulp) and Φ by cpu/vec_math-inl.h normal_cdf_v
// (≤ 5.9e-7 relative), made total for ±inf and NaN (cpu/vec_math-inl.h):
//   exp        eˣ                                   log        log x
//   tanh       tanh x                               sigmoid    1 / (1 + e^{−x})
//   softplus   max(x, 0) + log1p(e^{−|x|})          d: g·σ(x)
//   log_sigmoid min(x, 0) − log1p(e^{−|x|})         d: g·σ(−x)
//   elu        x > 0 ? x : α(eˣ − 1)           elu_feature  x > 0 ? x + 1 : (eˣ − 1) + 1
//   gelu       x·Φ(x), Φ(x) = ½·erfc(−x/√2)           d: g·(Φ(x) + x·e^{−x²/2}/√(2π))
// Every other op, other dtypes and strided or broadcast operands take the scalar loops of
// cpu/elementwise.cpp (and the scalar formula stays the CUDA kernels' and the float64 oracle's
// counterpart, unchanged). Written once over Highway's vector ops and compiled for every x86 target
// (SSSE3, SSE4, AVX2, AVX-512; scalar as the fallback); HWY_DYNAMIC_DISPATCH picks the best one per
// call. Cost: one pass, n/L vectors of L lanes, about 20–50 vector ops each (one or two exp/log), so
// compute-bound: the scalar libm loop costs about 10–30 ns per element. A run's last partial vector
// goes through the same vector code (cpu/vec_math-inl.h load_partial). OpenMP over blocks of at
// least cpu/loops.h's grain (blocks handed out one at a time), one dispatched call per block.
//
// Adding a vector form: a VecForm<op::X> specialisation below with `fast` and/or `backward`; the
// dispatch, the fallback and the tests (tests/core/test_elementwise_kernels.cpp, on every target)
// follow from it.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/cpu/unary_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "core/cpu/vec_math-inl.h"

#ifndef LINTRA_CORE_CPU_UNARY_SIMD_ONCE_
#define LINTRA_CORE_CPU_UNARY_SIMD_ONCE_
#include "core/cpu/unary_simd.h"
#include "core/unary_ops.h"
#endif

// --- per-target parts ------------------------------------------------------------------------------
HWY_BEFORE_NAMESPACE();
namespace lintra::kernels::cpu::HWY_NAMESPACE {
namespace {

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

HWY_INLINE V keep_nan(V x, V y) { return hn::IfThenElse(hn::IsNaN(x), x, y); }
HWY_INLINE V sigmoid(D d, V x) { return sigmoid_v(d, x); }  // clamped as scalar::exp_f32
HWY_INLINE V log1p_exp_neg_abs(D d, V x) {  // log1p(e^{−|x|}): Highway's Log1p is valid on [0, 1]
  return hn::Log1p(d, exp_bounded(d, hn::Neg(hn::Abs(x))));
}

// The vector forms: fast(d, x, a, b) and backward(d, g, x, y, a, b), as the op structs' formulas.
template <class Op> struct VecForm {};

template <> struct VecForm<op::Exp> {
  static V fast(D d, V x, V, V) { return exp_full(d, x); }
};
template <> struct VecForm<op::Log> {
  static V fast(D d, V x, V, V) { return log_full(d, x); }
};
template <> struct VecForm<op::Tanh> {
  static V fast(D d, V x, V, V) { return tanh_v(d, x); }
};
template <> struct VecForm<op::Sigmoid> {
  static V fast(D d, V x, V, V) { return sigmoid(d, x); }
};
template <> struct VecForm<op::Softplus> {
  static V fast(D d, V x, V, V) { return keep_nan(x, hn::Add(hn::Max(x, hn::Zero(d)), log1p_exp_neg_abs(d, x))); }
  static V backward(D d, V g, V x, V, V, V) { return hn::Mul(g, sigmoid(d, x)); }
};
template <> struct VecForm<op::LogSigmoid> {
  static V fast(D d, V x, V, V) { return keep_nan(x, hn::Sub(hn::Min(x, hn::Zero(d)), log1p_exp_neg_abs(d, x))); }
  static V backward(D d, V g, V x, V, V, V) { return hn::Mul(g, sigmoid(d, hn::Neg(x))); }
};
template <> struct VecForm<op::Elu> {
  static V fast(D d, V x, V alpha, V) {
    return hn::IfThenElse(hn::Gt(x, hn::Zero(d)), x, hn::Mul(alpha, hn::Sub(exp_bounded(d, x), hn::Set(d, 1.0f))));
  }
};

template <> struct VecForm<op::EluFeature> {  // (eˣ − 1) + 1 as the scalar formula, for the same bits
  static V fast(D d, V x, V, V) {
    const V one = hn::Set(d, 1.0f);
    return hn::IfThenElse(hn::Gt(x, hn::Zero(d)), hn::Add(x, one), hn::Add(hn::Sub(exp_bounded(d, x), one), one));
  }
  // g·min(φ, 1) read from φ alone, as the scalar formula: g where φ > 1, else g·φ.
  static V backward(D d, V g, V, V y, V, V) { return hn::IfThenElse(hn::Gt(y, hn::Set(d, 1.0f)), g, hn::Mul(g, y)); }
};

template <> struct VecForm<op::Gelu> {  // x·Φ(x); d = g·(Φ(x) + x·φ(x)), φ(x) = e^{−x²/2}/√(2π)
  static V fast(D d, V x, V, V) {
    V gauss;
    return hn::Mul(x, normal_cdf_v(d, x, &gauss));
  }
  static V backward(D d, V g, V x, V, V, V) {
    V gauss;
    const V cdf = normal_cdf_v(d, x, &gauss);
    return hn::Mul(g, hn::MulAdd(hn::Mul(x, hn::Set(d, 0.39894228040143268f)), gauss, cdf));
  }
};

template <class Op> constexpr bool vec_fast = requires { &VecForm<Op>::fast; };
template <class Op> constexpr bool vec_backward = requires { &VecForm<Op>::backward; };

template <class Op> void map_fast(const float* x, float* out, int64_t n, float a, float b) {
  const D d;
  const int64_t L = int64_t(hn::Lanes(d));
  const V va = hn::Set(d, a), vb = hn::Set(d, b);
  for (int64_t i = 0; i < n; i += L) {
    const int64_t m = std::min(L, n - i);
    store_at(d, VecForm<Op>::fast(d, load_at(d, x, i, m), va, vb), out, i, m);
  }
}

// x or y is null where Op's backward does not read it (then 0 is passed in its place).
template <class Op>
void map_backward(const float* g, const float* x, const float* y, float* dx, int64_t n, float a, float b) {
  const D d;
  const int64_t L = int64_t(hn::Lanes(d));
  const V va = hn::Set(d, a), vb = hn::Set(d, b), zero = hn::Zero(d);
  for (int64_t i = 0; i < n; i += L) {
    const int64_t m = std::min(L, n - i);
    const V xv = x != nullptr ? load_at(d, x, i, m) : zero, yv = y != nullptr ? load_at(d, y, i, m) : zero;
    store_at(d, VecForm<Op>::backward(d, load_at(d, g, i, m), xv, yv, va, vb), dx, i, m);
  }
}

}  // namespace

// The entry points of dynamic dispatch: false when op has no vector form (nothing done).
bool HasVectorForm(UnaryOp op, bool backward) {
  return op.visit([&]<class Op>() { return backward ? vec_backward<Op> : vec_fast<Op>; });
}

bool UnaryF32(UnaryOp op, const float* x, float* out, int64_t n, float a, float b) {
  return op.visit([&]<class Op>() {
    if constexpr (vec_fast<Op>) {
      map_fast<Op>(x, out, n, a, b);
      return true;
    } else {
      return false;
    }
  });
}

bool UnaryBackwardF32(UnaryOp op, const float* g, const float* x, const float* y, float* dx, int64_t n, float a,
                      float b) {
  return op.visit([&]<class Op>() {
    if constexpr (vec_backward<Op>) {
      map_backward<Op>(g, x, y, dx, n, a, b);
      return true;
    } else {
      return false;
    }
  });
}

}  // namespace lintra::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

// --- the kernels: dispatch per block -------------------------------------------------------------------
#if HWY_ONCE

#include "core/cpu/loops.h"

namespace lintra::kernels::cpu {

HWY_EXPORT(HasVectorForm);
HWY_EXPORT(UnaryF32);
HWY_EXPORT(UnaryBackwardF32);

namespace {

// f(i0, i1) over [0, n) in blocks of cpu/loops.h's kBlockElements (a multiple of 64: whole lines),
// handed to the OpenMP threads one at a time above the grain.
template <class F> void over_blocks(int64_t n, F&& f) { for_each_block(n, kBlockElements, n >= kParallelGrain, f); }

}  // namespace

bool unary_has_vector_form(UnaryOp op) { return HWY_DYNAMIC_DISPATCH(HasVectorForm)(op, false); }
bool unary_backward_has_vector_form(UnaryOp op) { return HWY_DYNAMIC_DISPATCH(HasVectorForm)(op, true); }

bool unary_simd_f32(UnaryOp op, const float* x, float* out, int64_t n, float a, float b) {
  if (!unary_has_vector_form(op)) return false;
  over_blocks(n, [&](int64_t i0, int64_t i1) { HWY_DYNAMIC_DISPATCH(UnaryF32)(op, x + i0, out + i0, i1 - i0, a, b); });
  return true;
}

bool unary_backward_simd_f32(UnaryOp op, const float* g, const float* x, const float* y, float* dx, int64_t n, float a,
                             float b) {
  if (!unary_backward_has_vector_form(op)) return false;
  over_blocks(n, [&](int64_t i0, int64_t i1) {
    HWY_DYNAMIC_DISPATCH(UnaryBackwardF32)(op, g + i0, x != nullptr ? x + i0 : nullptr, y != nullptr ? y + i0 : nullptr,
                                           dx + i0, i1 - i0, a, b);
  });
  return true;
}

}  // namespace lintra::kernels::cpu
#endif  // HWY_ONCE
