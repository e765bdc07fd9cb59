// cpu/masked_softmax.cpp — softmax over the last dim restricted to allowed keys (the masked softmax of
// softmax attention, nn/attention/softmax_attention.cpp):
//   y_i = exp(x_i − m) / Σ_{j allowed} exp(x_j − m)  for allowed i,  y_i = 0 otherwise,
//   m = max_{j allowed} x_j;  a row with no allowed key is all 0 (not 0/0).
// The same arithmetic as softmax(x + additive mask) with additive 0 / −inf, without the additive
// tensor. The backward is softmax_backward: y = 0 gives dx = 0 on masked keys and empty rows.
// Rows are independent: OpenMP over rows; `allowed` (u8) broadcasts to x's shape with any strides.
// A float32 row whose mask row is contiguous (the attention masks' layout) runs on Highway vectors,
// dispatched at run time to the best target the CPU has: two passes (the allowed maximum; exp, sum and
// store), then a scale, each mask byte widened to a lane mask; exp by cpu/vec_math-inl.h (the scalar
// kernels' formula, ≈ 2 ulp). Float64 rows and strided mask rows take the scalar loops below (exp of
// scalar_ops.h). Time O(rows·S), no scratch.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/cpu/masked_softmax.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "core/cpu/vec_math-inl.h"

// --- per-target parts ------------------------------------------------------------------------------
HWY_BEFORE_NAMESPACE();
namespace lintra::kernels::cpu::HWY_NAMESPACE {

// One float32 row of S logits x with its contiguous mask row a into y.
void MaskedSoftmaxRowF32(const float* x, const uint8_t* a, float* y, int64_t S) {
  const hn::ScalableTag<float> d;
  const hn::Rebind<uint8_t, decltype(d)> d8;
  const hn::Rebind<int32_t, decltype(d)> di;
  const int64_t L = int64_t(hn::Lanes(d));
  const float ninf = -std::numeric_limits<float>::infinity();
  const auto allowed = [&](int64_t i, int64_t n) {
    return hn::RebindMask(d, hn::Ne(hn::PromoteTo(di, load_at(d8, a, i, n, uint8_t(0))), hn::Zero(di)));
  };
  auto vmax = hn::Set(d, ninf);
  bool any = false;
  for (int64_t i = 0; i < S; i += L) {
    const int64_t n = std::min(L, S - i);
    const auto ok = allowed(i, n);
    any = any || !hn::AllFalse(d, ok);
    vmax = hn::Max(vmax, hn::IfThenElse(ok, load_at(d, x, i, n), hn::Set(d, ninf)));
  }
  if (!any) {
    std::fill(y, y + S, 0.0f);
    return;
  }
  float m = hn::GetLane(hn::MaxOfLanes(d, vmax));
  if (m == ninf) m = 0;  // every allowed logit is −inf: keep exp finite, as the plain softmax does
  const auto vm = hn::Set(d, m);
  const float sum = sum_row(d, S, [&](int64_t i, int64_t n) {
    const auto e = hn::IfThenElseZero(allowed(i, n), exp_bounded(d, hn::Sub(load_at(d, x, i, n), vm)));
    store_at(d, e, y, i, n);
    return e;
  });
  const auto inv = hn::Set(d, 1.0f / sum);
  for (int64_t i = 0; i < S; i += L) {
    const int64_t n = std::min(L, S - i);
    store_at(d, hn::Mul(load_at(d, y, i, n), inv), y, i, n);
  }
}

}  // namespace lintra::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

// --- the kernel ----------------------------------------------------------------------------------------
#if HWY_ONCE
#include <limits>

#include "core/cpu/loops.h"
#include "core/kernels.h"
#include "core/scalar_ops.h"

namespace lintra::kernels::cpu {

HWY_EXPORT(MaskedSoftmaxRowF32);

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
    const int64_t rows_per_block = block_items(S);
    for_each_block(rows, rows_per_block, rows * S >= kParallelGrain, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const uint8_t* ar = ap + row_offset(r, a.shape(), a.strides());
        if constexpr (std::is_same_v<T, float>) {
          if (as == 1) {
            HWY_DYNAMIC_DISPATCH(MaskedSoftmaxRowF32)(xp + r * S, ar, yp + r * S, S);
            continue;
          }
        }
        masked_row<T>(xp + r * S, ar, as, yp + r * S, S);
      }
    });
  });
}

}  // namespace lintra::kernels::cpu
#endif  // HWY_ONCE
