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
// with the thread count (team_for over B·H, one task per (b, h)). q and k may have any row stride (the
// attention's head-split views) but a unit last stride; num, g, out and den are contiguous.
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

// One (b, h) head: rows of q, k at a row stride (unit column stride), contiguous rows of the rest.
template <typename T> struct Head {
  const T *q, *k;
  int64_t q_rs, k_rs;
  const T* num;  // forward: num; backward: out
  const T* g;    // backward only
  const T* den;  // backward only
  T *out, *den_out, *gq, *gk;  // forward: out, den_out; backward: out = gnum, gq, gk
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
    map_row(d, h.num + t * h.M, den, h.out + t * h.M, h.M, kDiv);
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
    const T* gt = h.g + t * h.M;
    const T* ot = h.num + t * h.M;
    const T den = h.den[t];
    const T dot =
        sum_row(d, h.M, [&](int64_t i, int64_t m) { return hn::Mul(load_at(d, gt, i, m), load_at(d, ot, i, m)); });
    c[t] = -dot / den;
    map_row(d, gt, den, h.out + t * h.M, h.M, kDiv);
    map_row(d, z, c[t], h.gq + t * h.E, h.E, kMul);
  }
  std::fill(z, z + h.E, T(0));
  for (int64_t t = h.N - 1; t >= 0; --t) {  // descending: R = Σ_{i≥t} c_i q_i = gk_t
    const T* qt = h.q + t * h.q_rs;
    const auto ct = hn::Set(d, c[t]);
    T* gkt = h.gk + t * h.E;
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
#include "core/cpu/team_loop.h"
#include "core/kernels.h"

namespace lintra::kernels::cpu {

HWY_EXPORT(NormaliseForwardF32);
HWY_EXPORT(NormaliseForwardF64);
HWY_EXPORT(NormaliseBackwardF32);
HWY_EXPORT(NormaliseBackwardF64);

namespace {

// q or k with a unit last stride (a copy otherwise).
Tensor unit_last_stride(const Tensor& t) { return t.stride(3) == 1 || t.size(3) <= 1 ? t : t.contiguous(); }

// Runs f(head) for every (b, h) pair: the B·H pairs handed to the team one at a time (cpu/team_loop.h).
template <typename T, typename F>
void for_each_head(const Tensor& q, const Tensor& k, const T* num, const T* g, const T* den, T* out, T* den_out,
                   T* gq, T* gk, int64_t M, double eps, F&& f) {
  const int64_t B = q.size(0), H = q.size(1), N = q.size(2), E = q.size(3), BH = B * H;
  const T* qp = q.data<T>();
  const T* kp = k.data<T>();
  team_for(BH, BH * N * (E + M) >= (int64_t(1) << 15), [&](int64_t i) {
    const int64_t b = i / H, hh = i % H;
    normalise::Head<T> head{qp + b * q.stride(0) + hh * q.stride(1),
                            kp + b * k.stride(0) + hh * k.stride(1),
                            q.stride(2),
                            k.stride(2),
                            num + i * N * M,
                            g != nullptr ? g + i * N * M : nullptr,
                            den != nullptr ? den + i * N : nullptr,
                            out + i * N * M,
                            den_out != nullptr ? den_out + i * N : nullptr,
                            gq != nullptr ? gq + i * N * E : nullptr,
                            gk != nullptr ? gk + i * N * E : nullptr,
                            N,
                            E,
                            M,
                            T(eps)};
    f(head);
  });
}

}  // namespace

void causal_normalise_forward(const Tensor& q_in, const Tensor& k_in, const Tensor& num_in, double eps, Tensor& out,
                              Tensor& den) {
  if (out.numel() == 0 && den.numel() == 0) return;
  const Tensor q = unit_last_stride(q_in), k = unit_last_stride(k_in), num = num_in.contiguous();
  dispatch_float(out.dtype(), "causal_normalise_forward", [&]<typename T>() {
    for_each_head<T>(q, k, num.data<T>(), nullptr, nullptr, out.data<T>(), den.data<T>(), nullptr, nullptr,
                     num.size(3), eps, [](const normalise::Head<T>& h) {
                       if constexpr (std::is_same_v<T, float>) HWY_DYNAMIC_DISPATCH(NormaliseForwardF32)(h);
                       else HWY_DYNAMIC_DISPATCH(NormaliseForwardF64)(h);
                     });
  });
}

void causal_normalise_backward(const Tensor& q_in, const Tensor& k_in, const Tensor& out_in, const Tensor& den_in,
                               const Tensor& grad, Tensor& gnum, Tensor& gq, Tensor& gk) {
  if (gq.numel() == 0 && gnum.numel() == 0) return;
  const Tensor q = unit_last_stride(q_in), k = unit_last_stride(k_in), out = out_in.contiguous(),
               den = den_in.contiguous(), g = grad.contiguous();
  dispatch_float(gnum.dtype(), "causal_normalise_backward", [&]<typename T>() {
    for_each_head<T>(q, k, out.data<T>(), g.data<T>(), den.data<T>(), gnum.data<T>(), nullptr, gq.data<T>(),
                     gk.data<T>(), out.size(3), 0.0, [](const normalise::Head<T>& h) {
                       if constexpr (std::is_same_v<T, float>) HWY_DYNAMIC_DISPATCH(NormaliseBackwardF32)(h);
                       else HWY_DYNAMIC_DISPATCH(NormaliseBackwardF64)(h);
                     });
  });
}

}  // namespace lintra::kernels::cpu
#endif  // HWY_ONCE
