// cpu/masked_softmax.cpp — softmax over the last dim restricted to allowed keys (the masked softmax of
// softmax attention, nn/attention/softmax_attention.cpp):
//   y_i = exp(x_i − m) / Σ_{j allowed} exp(x_j − m)  for allowed i,  y_i = 0 otherwise,
//   m = max_{j allowed} x_j;  a row with no allowed key is all 0 (not 0/0).
// The same arithmetic as softmax(x + additive mask) with additive 0 / −inf, without the additive
// tensor. The backward is softmax_backward: y = 0 gives dx = 0 on masked keys and empty rows.
// Rows are independent: OpenMP over rows, the exp vectorised (scalar_ops.h); `allowed` (u8) broadcasts
// to x's shape with any strides. Time O(rows·S), no scratch.
#include <limits>

#include "core/cpu/loops.h"
#include "core/kernels.h"
#include "core/scalar_ops.h"

namespace lintra::kernels::cpu {

namespace {

// Element offset of the start of row r (the last dim excluded) for the given shape and strides.
int64_t row_offset(int64_t r, const Shape& shape, const Strides& strides) {
  int64_t off = 0;
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d) {
    const int64_t n = shape[size_t(d)];
    off += (r % n) * strides[size_t(d)];
    r /= n;
  }
  return off;
}

template <typename T>
void masked_row(const T* x, const uint8_t* a, int64_t as, T* y, int64_t S) {
  const T minus_inf = -std::numeric_limits<T>::infinity();
  T m = minus_inf;
  for (int64_t i = 0; i < S; ++i)
    if (a[i * as] && x[i] > m) m = x[i];
  bool any = false;
  for (int64_t i = 0; i < S && !any; ++i) any = a[i * as] != 0;
  if (!any) {
    for (int64_t i = 0; i < S; ++i) y[i] = T(0);
    return;
  }
  if (m == minus_inf) m = 0;  // every allowed logit is −inf: keep exp finite, as the plain softmax does
  T sum = 0;
  for (int64_t i = 0; i < S; ++i) y[i] = a[i * as] ? x[i] - m : minus_inf;
#pragma omp simd reduction(+ : sum)
  for (int64_t i = 0; i < S; ++i) {
    const T e = scalar::exp<T>(y[i]);
    y[i] = e;
    sum += e;
  }
  const T inv = T(1) / sum;
#pragma omp simd
  for (int64_t i = 0; i < S; ++i) y[i] *= inv;
}

}  // namespace

void masked_softmax_forward(const Tensor& x_in, const Tensor& allowed, Tensor& out) {
  const Tensor x = x_in.contiguous();
  const int64_t S = x.dim() == 0 ? 1 : x.shape().back();
  const int64_t rows = S == 0 ? 0 : x.numel() / S;
  const Tensor a = allowed.expand(x.shape());
  const uint8_t* ap = a.data<uint8_t>();
  const int64_t as = x.dim() == 0 ? 0 : a.strides().back();
  dispatch_float(x.dtype(), "masked_softmax", [&]<typename T>() {
    const T* xp = x.data<T>();
    T* yp = out.data<T>();
#pragma omp parallel for schedule(static) if (rows * S >= kParallelGrain)
    for (int64_t r = 0; r < rows; ++r)
      masked_row<T>(xp + r * S, ap + row_offset(r, a.shape(), a.strides()), as, yp + r * S, S);
  });
}

}  // namespace lintra::kernels::cpu
