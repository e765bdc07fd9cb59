// cpu/layer_norm.cpp — layer normalisation over the last dim D, forward and backward.
//
// forward (per row):  μ = mean(x), σ² = mean((x − μ)²) (biased), rstd = 1/√(σ² + eps),
//                     x̂ = (x − μ)·rstd,  y = x̂·γ + β
// backward:           with g = dy·γ:  dx = rstd · (g − mean(g) − x̂ · mean(g·x̂))
//                     dγ = Σ_rows dy·x̂,  dβ = Σ_rows dy
// Written once over Highway's vector ops and compiled for every x86 target (SSSE3, SSE4, AVX2,
// AVX-512; scalar as the fallback); HWY_DYNAMIC_DISPATCH picks the best one per call. The row
// statistics are accumulated in double (float32 lanes promoted, half a vector at a time) in two passes
// (μ, then Σ(x − μ)²), as before; the rest runs in the input dtype. A row's last partial vector goes
// through the same vector code (zero-padded). Cost per row of D: forward 3 passes (2 in double, about
// 2·D/L' adds with L' the double lanes, and D/L FMAs), backward 2 passes of about 6 vector ops per
// vector. Time O(R·D); rows in parallel (OpenMP, one dispatched call per block of rows). dγ/dβ are
// accumulated per thread, then summed in a fixed order so results do not depend on scheduling (they
// differ between targets only by the order of float rounding). All tensors contiguous (ops.cpp).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/cpu/layer_norm.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "core/cpu/vec_math-inl.h"

#ifndef LINTRA_CORE_CPU_LAYER_NORM_ONCE_
#define LINTRA_CORE_CPU_LAYER_NORM_ONCE_
#include <cmath>
#endif

// --- per-target parts ------------------------------------------------------------------------------
HWY_BEFORE_NAMESPACE();
namespace lintra::kernels::cpu::HWY_NAMESPACE {
namespace {

using DD = hn::ScalableTag<double>;

// Elements [i, i + n) of x (n ≤ Lanes(DD)) as doubles, the missing lanes 0.
HWY_INLINE hn::Vec<DD> load_double(const double* x, int64_t i, int64_t n) { return load_at(DD(), x, i, n); }
HWY_INLINE hn::Vec<DD> load_double(const float* x, int64_t i, int64_t n) {
  const hn::Rebind<float, DD> df;  // as many floats as DD has doubles
  return hn::PromoteTo(DD(), load_at(df, x, i, n));
}

// (μ, rstd) of one row, accumulated in double.
template <typename T> void row_stats(const T* x, int64_t D, double eps, double& mu, double& rs) {
  const DD dd;
  mu = sum_row(dd, D, [&](int64_t i, int64_t n) { return load_double(x, i, n); }) / double(D);
  const auto vmu = hn::Set(dd, mu);
  const double v = sum_row(dd, D, [&](int64_t i, int64_t n) {
    const auto c = hn::Sub(load_double(x, i, n), vmu);
    const auto in_row = hn::FirstN(dd, size_t(n));  // padding lanes hold 0 − μ
    return hn::IfThenElseZero(in_row, hn::Mul(c, c));
  });
  rs = 1.0 / std::sqrt(v / double(D) + eps);
}

template <typename T>
void ln_forward_rows(const T* x, const T* g, const T* b, double eps, T* y, T* mean, T* rstd, int64_t r0, int64_t r1,
                     int64_t D) {
  const hn::ScalableTag<T> d;
  const int64_t L = int64_t(hn::Lanes(d));
  for (int64_t r = r0; r < r1; ++r) {
    const T* xr = x + r * D;
    T* yr = y + r * D;
    double mu = 0, rsd = 0;
    row_stats(xr, D, eps, mu, rsd);
    const T m = T(mu), rs = T(rsd);
    const auto vm = hn::Set(d, m), vrs = hn::Set(d, rs);
    for (int64_t i = 0; i < D; i += L) {
      const int64_t n = std::min(L, D - i);
      const auto xh = hn::Mul(hn::Sub(load_at(d, xr, i, n), vm), vrs);
      store_at(d, hn::MulAdd(xh, load_at(d, g, i, n), load_at(d, b, i, n)), yr, i, n);
    }
    mean[r] = m;
    rstd[r] = rs;
  }
}

// One row's dx, and its dy·x̂ and dy added to dg, db.
template <typename T>
void ln_backward_row(const T* dy, const T* x, T m, T rs, const T* g, T* dx, T* dg, T* db, int64_t D) {
  const hn::ScalableTag<T> d;
  const int64_t L = int64_t(hn::Lanes(d));
  const auto vm = hn::Set(d, m), vrs = hn::Set(d, rs);
  auto sg = hn::Zero(d), sgx = hn::Zero(d);
  for (int64_t i = 0; i < D; i += L) {  // zero padding: every padded term is 0
    const int64_t n = std::min(L, D - i);
    const auto dyv = load_at(d, dy, i, n), xh = hn::Mul(hn::Sub(load_at(d, x, i, n), vm), vrs);
    const auto gi = hn::Mul(dyv, load_at(d, g, i, n));
    sg = hn::Add(sg, gi);
    sgx = hn::MulAdd(gi, xh, sgx);
    store_at(d, hn::MulAdd(dyv, xh, load_at(d, dg, i, n)), dg, i, n);
    store_at(d, hn::Add(load_at(d, db, i, n), dyv), db, i, n);
  }
  const T inv_d = T(1) / T(D);
  const auto mg = hn::Set(d, hn::GetLane(hn::SumOfLanes(d, sg)) * inv_d);
  const auto mgx = hn::Set(d, hn::GetLane(hn::SumOfLanes(d, sgx)) * inv_d);
  for (int64_t i = 0; i < D; i += L) {
    const int64_t n = std::min(L, D - i);
    const auto xh = hn::Mul(hn::Sub(load_at(d, x, i, n), vm), vrs);
    const auto gi = hn::Mul(load_at(d, dy, i, n), load_at(d, g, i, n));
    store_at(d, hn::Mul(vrs, hn::NegMulAdd(xh, mgx, hn::Sub(gi, mg))), dx, i, n);
  }
}

template <typename T>
void ln_backward_rows(const T* dy, const T* x, const T* mean, const T* rstd, const T* g, T* dx, T* dg, T* db,
                      int64_t r0, int64_t r1, int64_t D) {
  for (int64_t r = r0; r < r1; ++r)
    ln_backward_row(dy + r * D, x + r * D, mean[r], rstd[r], g, dx + r * D, dg, db, D);
}

}  // namespace

// The entry points of dynamic dispatch (one per dtype and direction), each over rows [r0, r1).
void LayerNormRowsF32(const float* x, const float* g, const float* b, double eps, float* y, float* mean, float* rstd,
                      int64_t r0, int64_t r1, int64_t D) {
  ln_forward_rows(x, g, b, eps, y, mean, rstd, r0, r1, D);
}
void LayerNormRowsF64(const double* x, const double* g, const double* b, double eps, double* y, double* mean,
                      double* rstd, int64_t r0, int64_t r1, int64_t D) {
  ln_forward_rows(x, g, b, eps, y, mean, rstd, r0, r1, D);
}
void LayerNormBackwardRowsF32(const float* dy, const float* x, const float* mean, const float* rstd, const float* g,
                              float* dx, float* dg, float* db, int64_t r0, int64_t r1, int64_t D) {
  ln_backward_rows(dy, x, mean, rstd, g, dx, dg, db, r0, r1, D);
}
void LayerNormBackwardRowsF64(const double* dy, const double* x, const double* mean, const double* rstd,
                              const double* g, double* dx, double* dg, double* db, int64_t r0, int64_t r1, int64_t D) {
  ln_backward_rows(dy, x, mean, rstd, g, dx, dg, db, r0, r1, D);
}

}  // namespace lintra::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

// --- the kernels ---------------------------------------------------------------------------------------
#if HWY_ONCE

#include <vector>

#include "core/cpu/loops.h"
#include "core/kernels.h"

namespace lintra::kernels::cpu {

HWY_EXPORT(LayerNormRowsF32);
HWY_EXPORT(LayerNormRowsF64);
HWY_EXPORT(LayerNormBackwardRowsF32);
HWY_EXPORT(LayerNormBackwardRowsF64);

namespace {

// Blocks of rows (cpu/loops.h, handed to the OpenMP threads one at a time) above 2^14 elements.
bool parallel_rows(int64_t R, int64_t D) { return R * D >= (1 << 14) && R > 1; }

template <typename T>
void ln_forward(const T* x, const T* g, const T* b, double eps, T* y, T* mean, T* rstd, int64_t R, int64_t D) {
  for_each_block(R, block_items(D), parallel_rows(R, D), [&](int64_t r0, int64_t r1) {
    if constexpr (std::is_same_v<T, float>)
      HWY_DYNAMIC_DISPATCH(LayerNormRowsF32)(x, g, b, eps, y, mean, rstd, r0, r1, D);
    else HWY_DYNAMIC_DISPATCH(LayerNormRowsF64)(x, g, b, eps, y, mean, rstd, r0, r1, D);
  });
}

// dγ and dβ are summed per block of rows into the block's own partial row, then over the blocks in
// order: the same sums whatever the thread count or schedule.
template <typename T>
void ln_backward(const T* dy, const T* x, const T* mean, const T* rstd, const T* g, T* dx, T* dg, T* db, int64_t R,
                 int64_t D) {
  const bool parallel = parallel_rows(R, D);
  const int64_t rows_per_block = parallel ? block_items(D) : R;
  const int64_t blocks = (R + rows_per_block - 1) / rows_per_block;
  std::vector<T> dg_part(size_t(blocks) * size_t(D), T(0)), db_part(size_t(blocks) * size_t(D), T(0));
  for_each_block(R, rows_per_block, parallel, [&](int64_t r0, int64_t r1) {
    const size_t at = size_t(r0 / rows_per_block) * size_t(D);
    if constexpr (std::is_same_v<T, float>)
      HWY_DYNAMIC_DISPATCH(LayerNormBackwardRowsF32)(dy, x, mean, rstd, g, dx, dg_part.data() + at,
                                                     db_part.data() + at, r0, r1, D);
    else HWY_DYNAMIC_DISPATCH(LayerNormBackwardRowsF64)(dy, x, mean, rstd, g, dx, dg_part.data() + at,
                                                        db_part.data() + at, r0, r1, D);
  });
  for (int64_t i = 0; i < D; ++i) {
    T a = 0, c = 0;
    for (int64_t k = 0; k < blocks; ++k) {
      a += dg_part[size_t(k) * size_t(D) + size_t(i)];
      c += db_part[size_t(k) * size_t(D) + size_t(i)];
    }
    dg[i] = a;
    db[i] = c;
  }
}

}  // namespace

void layer_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps, Tensor& y, Tensor& mean,
                        Tensor& rstd) {
  const int64_t D = x.shape().back();
  const int64_t R = D == 0 ? 0 : x.numel() / D;
  if (R == 0) return;
  dispatch_float(x.dtype(), "layer_norm", [&]<typename T>() {
    ln_forward<T>(x.data<T>(), gamma.data<T>(), beta.data<T>(), eps, y.data<T>(), mean.data<T>(), rstd.data<T>(), R, D);
  });
}

void layer_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& mean, const Tensor& rstd, const Tensor& gamma,
                         Tensor& dx, Tensor& dgamma, Tensor& dbeta) {
  const int64_t D = x.shape().back();
  const int64_t R = D == 0 ? 0 : x.numel() / D;
  dispatch_float(x.dtype(), "layer_norm_backward", [&]<typename T>() {
    ln_backward<T>(dy.data<T>(), x.data<T>(), mean.data<T>(), rstd.data<T>(), gamma.data<T>(), dx.data<T>(),
                   dgamma.data<T>(), dbeta.data<T>(), R, D);
  });
}

}  // namespace lintra::kernels::cpu
#endif  // HWY_ONCE
