// cpu/softmax.cpp — row softmax and log-softmax over the last dim, forward and backward.
//
//   softmax:      y_i = exp(x_i − m) / Σ_j exp(x_j − m),  m = max_j x_j
//   log_softmax:  y_i = x_i − m − log Σ_j exp(x_j − m)
//   backward:     softmax      dx_i = y_i (dy_i − Σ_j dy_j y_j)
//                 log_softmax  dx_i = dy_i − exp(y_i) Σ_j dy_j
// Written once over Highway's vector ops and compiled for every x86 target (SSSE3, SSE4, AVX2,
// AVX-512; scalar as the fallback); HWY_DYNAMIC_DISPATCH picks the best one the CPU has, per call.
// exp and log are cpu/vec_math-inl.h's (exp: float32 by scalar_ops.h's formula, ≈ 2 ulp, float64
// Highway's Exp, 1 ulp; log: Highway's, 4 ulp). A row's last partial
// vector goes through the same vector code (padded with −inf or 0), so no element takes a scalar path.
// Cost per row of D: forward 3 passes (max; exp + sum; scale — log: max; exp + sum; subtract), about
// 25 vector ops per vector of L lanes in the exp pass, so ≈ 25·D/L ops; backward 2 passes of 2–3 ops
// per vector (the log form adds one exp). A row stays in L1/L2 for D up to tens of thousands. Rows are
// independent: OpenMP over blocks of rows, one dispatched call per block. Sums run in four accumulators per lane, so results differ between
// targets only by the order of float rounding.
// Input rows may be strided (row stride ≠ D); the last dim must be contiguous (ops.cpp ensures it).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/cpu/softmax.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "core/cpu/vec_math-inl.h"

#ifndef LINTRA_CORE_CPU_SOFTMAX_ONCE_
#define LINTRA_CORE_CPU_SOFTMAX_ONCE_
#include <cmath>
#include <limits>
#endif

// --- per-target parts ------------------------------------------------------------------------------
HWY_BEFORE_NAMESPACE();
namespace lintra::kernels::cpu::HWY_NAMESPACE {
namespace {

template <typename T> T row_max(const T* x, int64_t D) {
  const hn::ScalableTag<T> d;
  const int64_t L = int64_t(hn::Lanes(d));
  const T ninf = -std::numeric_limits<T>::infinity();
  hn::Vec<decltype(d)> m0 = hn::Set(d, ninf), m1 = m0;
  int64_t i = 0;
  for (; i + 2 * L <= D; i += 2 * L) {
    m0 = hn::Max(m0, hn::LoadU(d, x + i));
    m1 = hn::Max(m1, hn::LoadU(d, x + i + L));
  }
  for (; i < D; i += L) m0 = hn::Max(m0, load_at(d, x, i, std::min(L, D - i), ninf));
  return hn::GetLane(hn::MaxOfLanes(d, hn::Max(m0, m1)));
}

template <typename T> void softmax_row(const T* x, T* y, int64_t D, bool log) {
  const hn::ScalableTag<T> d;
  T m = row_max(x, D);
  if (m == -std::numeric_limits<T>::infinity()) m = 0;  // a fully masked row: keep exp finite
  const auto vm = hn::Set(d, m);
  const T ninf = -std::numeric_limits<T>::infinity();
  if (log) {
    const T sum = sum_row(d, D, [&](int64_t i, int64_t n) {
      return exp_bounded(d, hn::Sub(load_at(d, x, i, n, ninf), vm));  // padding: e^−inf = 0
    });
    const auto lse = hn::Set(d, m + std::log(sum));
    for (int64_t i = 0, L = int64_t(hn::Lanes(d)); i < D; i += L) {
      const int64_t n = std::min(L, D - i);
      store_at(d, hn::Sub(load_at(d, x, i, n), lse), y, i, n);
    }
    return;
  }
  const T sum = sum_row(d, D, [&](int64_t i, int64_t n) {
    const auto e = exp_bounded(d, hn::Sub(load_at(d, x, i, n, ninf), vm));
    store_at(d, e, y, i, n);
    return e;
  });
  const auto inv = hn::Set(d, T(1) / sum);
  for (int64_t i = 0, L = int64_t(hn::Lanes(d)); i < D; i += L) {
    const int64_t n = std::min(L, D - i);
    store_at(d, hn::Mul(load_at(d, y, i, n), inv), y, i, n);
  }
}

template <typename T> void softmax_backward_row(const T* y, const T* dy, T* dx, int64_t D, bool log) {
  const hn::ScalableTag<T> d;
  const int64_t L = int64_t(hn::Lanes(d));
  if (log) {
    const auto s = hn::Set(d, sum_row(d, D, [&](int64_t i, int64_t n) { return load_at(d, dy, i, n); }));
    for (int64_t i = 0; i < D; i += L) {
      const int64_t n = std::min(L, D - i);
      store_at(d, hn::NegMulAdd(exp_bounded(d, load_at(d, y, i, n)), s, load_at(d, dy, i, n)), dx, i, n);
    }
    return;
  }
  const auto s = hn::Set(d, sum_row(d, D, [&](int64_t i, int64_t n) {
                           return hn::Mul(load_at(d, dy, i, n), load_at(d, y, i, n));  // padding: 0·0
                         }));
  for (int64_t i = 0; i < D; i += L) {
    const int64_t n = std::min(L, D - i);
    const auto yv = load_at(d, y, i, n);
    store_at(d, hn::Mul(yv, hn::Sub(load_at(d, dy, i, n), s)), dx, i, n);
  }
}

// Rows [r0, r1) of x (row stride xrow) into y (row stride D).
template <typename T> void softmax_rows(const T* x, int64_t xrow, T* y, int64_t r0, int64_t r1, int64_t D, bool log) {
  for (int64_t r = r0; r < r1; ++r) softmax_row(x + r * xrow, y + r * D, D, log);
}

template <typename T>
void softmax_backward_rows(const T* y, const T* dy, T* dx, int64_t r0, int64_t r1, int64_t D, bool log) {
  for (int64_t r = r0; r < r1; ++r) softmax_backward_row(y + r * D, dy + r * D, dx + r * D, D, log);
}

}  // namespace

// The entry points of dynamic dispatch (one per dtype and direction), each over rows [r0, r1).
void SoftmaxRowsF32(const float* x, int64_t xrow, float* y, int64_t r0, int64_t r1, int64_t D, bool log) {
  softmax_rows(x, xrow, y, r0, r1, D, log);
}
void SoftmaxRowsF64(const double* x, int64_t xrow, double* y, int64_t r0, int64_t r1, int64_t D, bool log) {
  softmax_rows(x, xrow, y, r0, r1, D, log);
}
void SoftmaxBackwardRowsF32(const float* y, const float* dy, float* dx, int64_t r0, int64_t r1, int64_t D, bool log) {
  softmax_backward_rows(y, dy, dx, r0, r1, D, log);
}
void SoftmaxBackwardRowsF64(const double* y, const double* dy, double* dx, int64_t r0, int64_t r1, int64_t D,
                            bool log) {
  softmax_backward_rows(y, dy, dx, r0, r1, D, log);
}

}  // namespace lintra::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

// --- the kernels ---------------------------------------------------------------------------------------
#if HWY_ONCE

#include "core/cpu/loops.h"
#include "core/kernels.h"

namespace lintra::kernels::cpu {

HWY_EXPORT(SoftmaxRowsF32);
HWY_EXPORT(SoftmaxRowsF64);
HWY_EXPORT(SoftmaxBackwardRowsF32);
HWY_EXPORT(SoftmaxBackwardRowsF64);

namespace {

// f(r0, r1) over blocks of rows (cpu/loops.h: handed to the OpenMP threads one at a time) when there
// is enough work.
template <class F> void over_row_blocks(int64_t rows, int64_t D, F&& f) {
  for_each_block(rows, block_items(D), rows * D >= (1 << 15) && rows > 1, f);
}

}  // namespace

void softmax_forward(const Tensor& x, bool log, Tensor& out) {
  const int64_t D = x.dim() == 0 ? 1 : x.shape().back();
  const int64_t rows = D == 0 ? 0 : x.numel() / D;
  if (rows == 0) return;
  // x is either contiguous or a set of contiguous rows with a uniform row stride (ops.cpp). The row
  // stride is D when x is contiguous (a size-1 dim's stride is arbitrary and says nothing), else the
  // stride of the innermost other dim of size > 1.
  int64_t xrow = D;
  if (!x.is_contiguous()) {
    for (int64_t d = x.dim() - 2; d >= 0; --d) {
      if (x.shape()[size_t(d)] > 1) {
        xrow = x.strides()[size_t(d)];
        break;
      }
    }
  }
  dispatch_float(x.dtype(), "softmax", [&]<typename T>() {
    const T* xp = static_cast<const T*>(x.raw_data());
    T* yp = static_cast<T*>(out.raw_data());
    over_row_blocks(rows, D, [&](int64_t r0, int64_t r1) {
      if constexpr (std::is_same_v<T, float>) HWY_DYNAMIC_DISPATCH(SoftmaxRowsF32)(xp, xrow, yp, r0, r1, D, log);
      else HWY_DYNAMIC_DISPATCH(SoftmaxRowsF64)(xp, xrow, yp, r0, r1, D, log);
    });
  });
}

void softmax_backward(const Tensor& y, const Tensor& dy, bool log, Tensor& dx) {
  const int64_t D = y.dim() == 0 ? 1 : y.shape().back();
  const int64_t rows = D == 0 ? 0 : y.numel() / D;
  if (rows == 0) return;
  dispatch_float(y.dtype(), "softmax_backward", [&]<typename T>() {
    const T* yp = static_cast<const T*>(y.raw_data());
    const T* gp = static_cast<const T*>(dy.raw_data());
    T* dp = static_cast<T*>(dx.raw_data());
    over_row_blocks(rows, D, [&](int64_t r0, int64_t r1) {
      if constexpr (std::is_same_v<T, float>) HWY_DYNAMIC_DISPATCH(SoftmaxBackwardRowsF32)(yp, gp, dp, r0, r1, D, log);
      else HWY_DYNAMIC_DISPATCH(SoftmaxBackwardRowsF64)(yp, gp, dp, r0, r1, D, log);
    });
  });
}

}  // namespace lintra::kernels::cpu
#endif  // HWY_ONCE
