// cpu/layer_norm.cpp — layer normalisation over the last dim D, forward and backward.
//
// forward (per row):  μ = mean(x), σ² = mean((x − μ)²) (biased), rstd = 1/√(σ² + eps),
//                     x̂ = (x − μ)·rstd,  y = x̂·γ + β
// backward:           with g = dy·γ:  dx = rstd · (g − mean(g) − x̂ · mean(g·x̂))
//                     dγ = Σ_rows dy·x̂,  dβ = Σ_rows dy
// Time O(R·D); rows in parallel. dγ/dβ are accumulated per thread, then summed in a fixed order
// so results do not depend on scheduling. All tensors contiguous (ops.cpp ensures it).
#include <cmath>
#include <vector>

#include <omp.h>

#include "core/kernels.h"

namespace lintra::kernels::cpu {

namespace {

template <typename T>
void ln_forward(const T* x, const T* g, const T* b, double eps, T* y, T* mean, T* rstd, int64_t R, int64_t D) {
#pragma omp parallel for schedule(static) if (R * D >= (1 << 14))
  for (int64_t r = 0; r < R; ++r) {
    const T* xr = x + r * D;
    T* yr = y + r * D;
    double s = 0;
    for (int64_t i = 0; i < D; ++i) s += double(xr[i]);
    const double mu = s / double(D);
    double v = 0;
    for (int64_t i = 0; i < D; ++i) {
      double d = double(xr[i]) - mu;
      v += d * d;
    }
    const T rs = T(1.0 / std::sqrt(v / double(D) + eps));
    const T m = T(mu);
#pragma omp simd
    for (int64_t i = 0; i < D; ++i) yr[i] = (xr[i] - m) * rs * g[i] + b[i];
    mean[r] = m;
    rstd[r] = rs;
  }
}

template <typename T>
void ln_backward(const T* dy, const T* x, const T* mean, const T* rstd, const T* g, T* dx, T* dg, T* db, int64_t R,
                 int64_t D) {
  const int nthreads = omp_get_max_threads();
  std::vector<T> dg_part(size_t(nthreads) * size_t(D), T(0)), db_part(size_t(nthreads) * size_t(D), T(0));
#pragma omp parallel num_threads(nthreads) if (R * D >= (1 << 14))
  {
    const int tid = omp_get_thread_num();
    T* dgp = dg_part.data() + size_t(tid) * size_t(D);
    T* dbp = db_part.data() + size_t(tid) * size_t(D);
#pragma omp for schedule(static)
    for (int64_t r = 0; r < R; ++r) {
      const T* dyr = dy + r * D;
      const T* xr = x + r * D;
      T* dxr = dx + r * D;
      const T m = mean[r], rs = rstd[r];
      T sum_g = 0, sum_gx = 0;
#pragma omp simd reduction(+ : sum_g, sum_gx)
      for (int64_t i = 0; i < D; ++i) {
        T xh = (xr[i] - m) * rs;
        T gi = dyr[i] * g[i];
        sum_g += gi;
        sum_gx += gi * xh;
        dgp[i] += dyr[i] * xh;
        dbp[i] += dyr[i];
      }
      const T mg = sum_g / T(D), mgx = sum_gx / T(D);
#pragma omp simd
      for (int64_t i = 0; i < D; ++i) {
        T xh = (xr[i] - m) * rs;
        dxr[i] = rs * (dyr[i] * g[i] - mg - xh * mgx);
      }
    }
  }
  for (int64_t i = 0; i < D; ++i) {
    T a = 0, c = 0;
    for (int t = 0; t < nthreads; ++t) {
      a += dg_part[size_t(t) * size_t(D) + size_t(i)];
      c += db_part[size_t(t) * size_t(D) + size_t(i)];
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
  dispatch_float(x.dtype(), "layer_norm", [&]<typename scalar_t>() {
    using T = scalar_t;
    ln_forward<T>(x.data<T>(), gamma.data<T>(), beta.data<T>(), eps, y.data<T>(), mean.data<T>(), rstd.data<T>(), R, D);
  });
}

void layer_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& mean, const Tensor& rstd, const Tensor& gamma,
                         Tensor& dx, Tensor& dgamma, Tensor& dbeta) {
  const int64_t D = x.shape().back();
  const int64_t R = D == 0 ? 0 : x.numel() / D;
  dispatch_float(x.dtype(), "layer_norm_backward", [&]<typename scalar_t>() {
    using T = scalar_t;
    ln_backward<T>(dy.data<T>(), x.data<T>(), mean.data<T>(), rstd.data<T>(), gamma.data<T>(), dx.data<T>(),
                   dgamma.data<T>(), dbeta.data<T>(), R, D);
  });
}

}  // namespace lintra::kernels::cpu
