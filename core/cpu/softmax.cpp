// cpu/softmax.cpp — row softmax and log-softmax over the last dim, forward and backward.
//
//   softmax:      y_i = exp(x_i − m) / Σ_j exp(x_j − m),  m = max_j x_j
//   log_softmax:  y_i = x_i − m − log Σ_j exp(x_j − m)
//   backward:     softmax      dx_i = y_i (dy_i − Σ_j dy_j y_j)
//                 log_softmax  dx_i = dy_i − exp(y_i) Σ_j dy_j
// Rows are independent: OpenMP over rows, vectorised exp (scalar_ops.h) inside. Three passes over a
// row (max, exp+sum, scale) that stay in cache for rows up to tens of thousands of elements.
// Input rows may be strided (row stride ≠ D); the last dim must be contiguous (ops.cpp ensures it).
#include <cmath>

#include "core/kernels.h"
#include "core/scalar_ops.h"

namespace lintra::kernels::cpu {

namespace {

template <typename T>
void softmax_rows(const T* x, int64_t xrow, T* y, int64_t rows, int64_t D, bool log) {
#pragma omp parallel for schedule(static) if (rows * D >= (1 << 15))
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * xrow;
    T* yr = y + r * D;
    T m = -std::numeric_limits<T>::infinity();
#pragma omp simd reduction(max : m)
    for (int64_t i = 0; i < D; ++i) m = xr[i] > m ? xr[i] : m;
    if (m == -std::numeric_limits<T>::infinity()) m = 0;  // a fully masked row: keep exp finite
    T sum = 0;
    if (log) {
#pragma omp simd reduction(+ : sum)
      for (int64_t i = 0; i < D; ++i) sum += scalar::exp<T>(xr[i] - m);
      T lse = m + std::log(sum);
#pragma omp simd
      for (int64_t i = 0; i < D; ++i) yr[i] = xr[i] - lse;
    } else {
#pragma omp simd reduction(+ : sum)
      for (int64_t i = 0; i < D; ++i) {
        T e = scalar::exp<T>(xr[i] - m);
        yr[i] = e;
        sum += e;
      }
      T inv = T(1) / sum;
#pragma omp simd
      for (int64_t i = 0; i < D; ++i) yr[i] *= inv;
    }
  }
}

template <typename T>
void softmax_backward_rows(const T* y, const T* dy, T* dx, int64_t rows, int64_t D, bool log) {
#pragma omp parallel for schedule(static) if (rows * D >= (1 << 15))
  for (int64_t r = 0; r < rows; ++r) {
    const T* yr = y + r * D;
    const T* gr = dy + r * D;
    T* dr = dx + r * D;
    T s = 0;
    if (log) {
#pragma omp simd reduction(+ : s)
      for (int64_t i = 0; i < D; ++i) s += gr[i];
#pragma omp simd
      for (int64_t i = 0; i < D; ++i) dr[i] = gr[i] - scalar::exp<T>(yr[i]) * s;
    } else {
#pragma omp simd reduction(+ : s)
      for (int64_t i = 0; i < D; ++i) s += gr[i] * yr[i];
#pragma omp simd
      for (int64_t i = 0; i < D; ++i) dr[i] = yr[i] * (gr[i] - s);
    }
  }
}

}  // namespace

void softmax_forward(const Tensor& x, bool log, Tensor& out) {
  const int64_t D = x.dim() == 0 ? 1 : x.shape().back();
  const int64_t rows = D == 0 ? 0 : x.numel() / D;
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
  dispatch_float(x.dtype(), "softmax", [&]<typename scalar_t>() {
    softmax_rows<scalar_t>(static_cast<const scalar_t*>(x.raw_data()), xrow, static_cast<scalar_t*>(out.raw_data()),
                           rows, D, log);
  });
}

void softmax_backward(const Tensor& y, const Tensor& dy, bool log, Tensor& dx) {
  const int64_t D = y.dim() == 0 ? 1 : y.shape().back();
  const int64_t rows = D == 0 ? 0 : y.numel() / D;
  dispatch_float(y.dtype(), "softmax_backward", [&]<typename scalar_t>() {
    softmax_backward_rows<scalar_t>(static_cast<const scalar_t*>(y.raw_data()),
                                    static_cast<const scalar_t*>(dy.raw_data()),
                                    static_cast<scalar_t*>(dx.raw_data()), rows, D, log);
  });
}

}  // namespace lintra::kernels::cpu
