// cpu/causal_normalise.cpp — causal linear attention's normaliser (PAPER.md §3 eq 12) in one sweep per
// (b, h), forward and backward: what cumsum, mul, sum, add and div did in about ten passes over
// (B, H, N, E|M) tensors forward and twenty backward.
//
//   Z_i = Σ_{j≤i} k_j,   den_i = q_i·Z_i + eps,   out_i = num_i / den_i
//   c_i = −(g_i·out_i) / den_i                                   (∂L/∂den_i)
//   gnum_i = g_i / den_i,   gq_i = c_i Z_i                        (ascending sweep)
//   gk_j = Σ_{i≥j} c_i q_i                                        (descending sweep)
// for q, k (B, H, N, E) and num, g (B, H, N, M). Time O(B·H·N·(E + M)); the forward reads q, k and num
// once and writes out and den; the backward reads q, k, out, den and g once (q twice), writes gnum, gq
// and gk, and keeps Z (E values) and c (N values) per thread.
//
// Each row's vectors are Highway's (every x86 target, dispatched at run time per (b, h) task, scalar
// as the fallback); a row's last partial vector is zero-padded (cpu/vec_math-inl.h). The dot products
// sum vector lanes, so results differ between targets only by the order of float rounding, and not
// with the thread count (OpenMP over B·H, one task per (b, h)). Every (B, H, N, ·) operand is read or
// written by rows at its own strides (a unit last stride; inputs without one are copied first): q and k
// come as the attention's head-split views, and out (forward) and g (backward) may be the head-merged
// layout (B, N, H, M) viewed as (B, H, N, M), so that merging the heads after the attention and splitting
// its gradient back copy nothing. den is contiguous.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/cpu/causal_normalise.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "core/cpu/vec_math-inl.h"

#ifndef LINTRA_CORE_CPU_CAUSAL_NORMALISE_ONCE_
#define LINTRA_CORE_CPU_CAUSAL_NORMALISE_ONCE_
#include <algorithm>
#include <cstdint>
#include <vector>

namespace lintra::kernels::cpu::normalise {

// One (b, h) head: each operand's first row and its row stride (a unit column stride); den contiguous.
template <typename T> struct Head {
  const T *q, *k;
  int64_t q_rs, k_rs;
  const T* num;  // forward: num; backward: out
  const T* g;    // backward only
  const T* den;  // backward only
  T *out, *den_out, *gq, *gk;  // forward: out, den_out; backward: out = gnum, gq, gk
  int64_t num_rs, g_rs, out_rs, gq_rs, gk_rs;
  int64_t N, E, M;
  T eps;
};

// Per-thread scratch: Z (or R) of E values and c of N values; thread_local and only growing.
template <typename T> T* scratch(size_t n) {
  thread_local std::vector<T> buffer;
  if (buffer.size() < n) buffer.resize(n);
  return buffer.data();
}

}  // namespace lintra::kernels::cpu::normalise
#endif

// --- per-target parts ------------------------------------------------------------------------------
HWY_BEFORE_NAMESPACE();
namespace lintra::kernels::cpu::HWY_NAMESPACE {
namespace {

using normalise::Head;

// z += k over E elements, then Σ q·z.
template <class D, typename T = hn::TFromD<D>>
HWY_INLINE T accumulate_and_dot(D d, T* z, const T* k, const T* q, int64_t E) {
  return sum_row(d, E, [&](int64_t i, int64_t m) {
    const auto zi = hn::Add(load_at(d, z, i, m), load_at(d, k, i, m));
    store_at(d, zi, z, i, m);
    return hn::Mul(load_at(d, q, i, m), zi);
  });
}

// o = f(x, s) over n elements, s broadcast: f is hn::Mul or hn::Div (gq = c·Z; out = num / den).
template <class D, class F, typename T = hn::TFromD<D>>
HWY_INLINE void map_row(D d, const T* x, T s, T* o, int64_t n, F&& f) {
  const int64_t L = int64_t(hn::Lanes(d));
  const auto vs = hn::Set(d, s);
  for (int64_t i = 0; i < n; i += L) {
    const int64_t m = std::min(L, n - i);
    store_at(d, f(load_at(d, x, i, m), vs), o, i, m);
  }
}
constexpr auto kMul = [](auto a, auto b) { return hn::Mul(a, b); };
constexpr auto kDiv = [](auto a, auto b) { return hn::Div(a, b); };

template <typename T> void forward_head(const Head<T>& h) {
  const hn::ScalableTag<T> d;
  T* z = normalise::scratch<T>(size_t(h.E));
  std::fill(z, z + h.E, T(0));
  for (int64_t t = 0; t < h.N; ++t) {
    const T den = accumulate_and_dot(d, z, h.k + t * h.k_rs, h.q + t * h.q_rs, h.E) + h.eps;
    h.den_out[t] = den;
    map_row(d, h.num + t * h.num_rs, den, h.out + t * h.out_rs, h.M, kDiv);
  }
}

template <typename T> void backward_head(const Head<T>& h) {
  const hn::ScalableTag<T> d;
  const int64_t L = int64_t(hn::Lanes(d));
  T* z = normalise::scratch<T>(size_t(h.E + h.N));
  T* c = z + h.E;
  std::fill(z, z + h.E, T(0));
  for (int64_t t = 0; t < h.N; ++t) {  // ascending: Z, c, gnum, gq
    const T* kt = h.k + t * h.k_rs;
    for (int64_t i = 0; i < h.E; i += L) {
      const int64_t m = std::min(L, h.E - i);
      store_at(d, hn::Add(load_at(d, z, i, m), load_at(d, kt, i, m)), z, i, m);
    }
    const T* gt = h.g + t * h.g_rs;
    const T* ot = h.num + t * h.num_rs;
    const T den = h.den[t];
    const T dot =
        sum_row(d, h.M, [&](int64_t i, int64_t m) { return hn::Mul(load_at(d, gt, i, m), load_at(d, ot, i, m)); });
    c[t] = -dot / den;
    map_row(d, gt, den, h.out + t * h.out_rs, h.M, kDiv);
    map_row(d, z, c[t], h.gq + t * h.gq_rs, h.E, kMul);
  }
  std::fill(z, z + h.E, T(0));
  for (int64_t t = h.N - 1; t >= 0; --t) {  // descending: R = Σ_{i≥t} c_i q_i = gk_t
    const T* qt = h.q + t * h.q_rs;
    const auto ct = hn::Set(d, c[t]);
    T* gkt = h.gk + t * h.gk_rs;
    for (int64_t i = 0; i < h.E; i += L) {
      const int64_t m = std::min(L, h.E - i);
      const auto r = hn::MulAdd(ct, load_at(d, qt, i, m), load_at(d, z, i, m));
      store_at(d, r, z, i, m);
      store_at(d, r, gkt, i, m);
    }
  }
}

}  // namespace

void NormaliseForwardF32(const Head<float>& h) { forward_head(h); }
void NormaliseForwardF64(const Head<double>& h) { forward_head(h); }
void NormaliseBackwardF32(const Head<float>& h) { backward_head(h); }
void NormaliseBackwardF64(const Head<double>& h) { backward_head(h); }

}  // namespace lintra::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

// --- the kernels: dispatch per (b, h) task -----------------------------------------------------------
#if HWY_ONCE
#include "core/kernels.h"

namespace lintra::kernels::cpu {

HWY_EXPORT(NormaliseForwardF32);
HWY_EXPORT(NormaliseForwardF64);
HWY_EXPORT(NormaliseBackwardF32);
HWY_EXPORT(NormaliseBackwardF64);

namespace {

// An input (B, H, N, ·) with a unit last stride (a copy otherwise).
Tensor unit_last_stride(const Tensor& t) { return t.stride(3) == 1 || t.size(3) <= 1 ? t : t.contiguous(); }

void check_writable_rows(const Tensor& t, const char* op, const char* name) {
  LINTRA_CHECK(t.stride(3) == 1 || t.size(3) <= 1, "{}: the output {} ({}) needs a unit last stride, got {}", op,
               name, t.describe(), t.stride(3));
}

// One (B, H, N, ·) operand by heads: head (b, h) starts at p + b·bs + h·hs, its rows rs apart.
template <typename T> struct Rows {
  T* p = nullptr;
  int64_t bs = 0, hs = 0, rs = 0;
  T* head(int64_t b, int64_t h) const { return p == nullptr ? nullptr : p + b * bs + h * hs; }
};
template <typename T> Rows<const T> rows_of(const Tensor& t) {
  return {t.data<T>(), t.stride(0), t.stride(1), t.stride(2)};
}
template <typename T> Rows<T> rows_of(Tensor& t) { return {t.data<T>(), t.stride(0), t.stride(1), t.stride(2)}; }

// The operands of one call; those a direction does not use stay empty.
template <typename T> struct Operands {
  Rows<const T> q, k, num, g;  // num: the forward's num, the backward's out
  const T* den = nullptr;      // backward: the forward's den
  Rows<T> out, gq, gk;         // out: the forward's out, the backward's gnum
  T* den_out = nullptr;        // forward only
};

// Runs f(head) for every (b, h) pair: OpenMP over the B·H pairs, dynamically scheduled.
template <typename T, typename F>
void for_each_head(const Operands<T>& o, int64_t B, int64_t H, int64_t N, int64_t E, int64_t M, double eps, F&& f) {
  const int64_t BH = B * H;
#pragma omp parallel for schedule(dynamic, 1) if (BH > 1 && BH * N * (E + M) >= (int64_t(1) << 15))
  for (int64_t i = 0; i < BH; ++i) {
    const int64_t b = i / H, h = i % H;
    f(normalise::Head<T>{.q = o.q.head(b, h),
                         .k = o.k.head(b, h),
                         .q_rs = o.q.rs,
                         .k_rs = o.k.rs,
                         .num = o.num.head(b, h),
                         .g = o.g.head(b, h),
                         .den = o.den != nullptr ? o.den + i * N : nullptr,
                         .out = o.out.head(b, h),
                         .den_out = o.den_out != nullptr ? o.den_out + i * N : nullptr,
                         .gq = o.gq.head(b, h),
                         .gk = o.gk.head(b, h),
                         .num_rs = o.num.rs,
                         .g_rs = o.g.rs,
                         .out_rs = o.out.rs,
                         .gq_rs = o.gq.rs,
                         .gk_rs = o.gk.rs,
                         .N = N,
                         .E = E,
                         .M = M,
                         .eps = T(eps)});
  }
}

}  // namespace

void causal_normalise_forward(const Tensor& q_in, const Tensor& k_in, const Tensor& num_in, double eps, Tensor& out,
                              Tensor& den) {
  if (out.numel() == 0 && den.numel() == 0) return;
  const Tensor q = unit_last_stride(q_in), k = unit_last_stride(k_in), num = unit_last_stride(num_in);
  check_writable_rows(out, "causal_normalise_forward", "out");
  LINTRA_CHECK(den.is_contiguous(), "causal_normalise_forward: den must be contiguous, got {}", den.describe());
  dispatch_float(out.dtype(), "causal_normalise_forward", [&]<typename T>() {
    const Operands<T> o{.q = rows_of<T>(q), .k = rows_of<T>(k), .num = rows_of<T>(num), .out = rows_of<T>(out),
                        .den_out = den.data<T>()};
    for_each_head<T>(o, q.size(0), q.size(1), q.size(2), q.size(3), num.size(3), eps,
                     [](const normalise::Head<T>& h) {
                       if constexpr (std::is_same_v<T, float>) HWY_DYNAMIC_DISPATCH(NormaliseForwardF32)(h);
                       else HWY_DYNAMIC_DISPATCH(NormaliseForwardF64)(h);
                     });
  });
}

void causal_normalise_backward(const Tensor& q_in, const Tensor& k_in, const Tensor& out_in, const Tensor& den_in,
                               const Tensor& grad, Tensor& gnum, Tensor& gq, Tensor& gk) {
  if (gq.numel() == 0 && gnum.numel() == 0) return;
  const Tensor q = unit_last_stride(q_in), k = unit_last_stride(k_in), out = unit_last_stride(out_in),
               den = den_in.contiguous(), g = unit_last_stride(grad);
  check_writable_rows(gnum, "causal_normalise_backward", "gnum");
  check_writable_rows(gq, "causal_normalise_backward", "gq");
  check_writable_rows(gk, "causal_normalise_backward", "gk");
  dispatch_float(gnum.dtype(), "causal_normalise_backward", [&]<typename T>() {
    const Operands<T> o{.q = rows_of<T>(q), .k = rows_of<T>(k), .num = rows_of<T>(out), .g = rows_of<T>(g),
                        .den = den.data<T>(), .out = rows_of<T>(gnum), .gq = rows_of<T>(gq), .gk = rows_of<T>(gk)};
    for_each_head<T>(o, q.size(0), q.size(1), q.size(2), q.size(3), out.size(3), 0.0,
                     [](const normalise::Head<T>& h) {
                       if constexpr (std::is_same_v<T, float>) HWY_DYNAMIC_DISPATCH(NormaliseBackwardF32)(h);
                       else HWY_DYNAMIC_DISPATCH(NormaliseBackwardF64)(h);
                     });
  });
}

}  // namespace lintra::kernels::cpu
#endif  // HWY_ONCE
