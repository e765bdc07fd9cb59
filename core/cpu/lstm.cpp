// cpu/lstm.cpp — the recurrence of one LSTM direction (nn/lstm.h), fused: per time step one GEMM for
// the recurrent projection and one loop over (B, H) for the gates; and its backpropagation through time.
//
// Forward, for steps s = 0 … T−1 (gate order i, f, g, o as PyTorch; xw_τ = x_τ W_ihᵀ + b_ih is an input):
//   a_s = xw_τ + b_hh + h_{s−1} W_hhᵀ                      (B × 4H: the GEMM (B × H)·(H × 4H))
//   i = σ(a_i), f = σ(a_f), g = tanh(a_g), o = σ(a_o)
//   c_s = f ⊙ c_{s−1} + i ⊙ g,   h_s = o ⊙ tanh(c_s),   out_τ = h_s
// for each sequence b with s < T_b, at frame τ = s, or τ = T_b − 1 − s when `reverse` (the backward
// direction of a bidirectional LSTM: each sequence from its last valid frame to its first, without
// reversing the tensors). For s ≥ T_b the state is frozen, (h_s, c_s) = (h_{s−1}, c_{s−1}), and the
// padded frame s gets out_s = 0. Steps s ≥ max_b T_b skip the GEMM.
//
// Backward, s = T−1 … 0, carrying δh = ∂L/∂h_s through the recurrence (0 at s = T) and δc likewise,
// with go = ∂L/∂out_τ:
//   s < T_b:  δh += go,  τc = tanh(c_s),  δc += δh ⊙ o ⊙ (1 − τc²)
//             ∂a_s = [δc⊙g⊙i(1−i),  δc⊙c_{s−1}⊙f(1−f),  δc⊙i⊙(1−g²),  δh⊙τc⊙o(1−o)]  (= ∂L/∂xw_τ)
//             δc ← δc ⊙ f,  δh ← ∂a_s W_hh                (the GEMM (B × 4H)·(4H × H), skipped at s = 0)
//   s ≥ T_b:  ∂a_s = 0; δh and δc pass unchanged (the state was copied); go is ignored (out is 0)
//   ∂W_hh = Σ_s ∂a_sᵀ h_{s−1}   (one GEMM (4H × T·B)·(T·B × H) over the saved states),
//   ∂b_hh = Σ_{s, b} ∂a_s.
// Time O(T·B·H·4H) per pass (the forward one GEMM per step, the backward two of the same size in all)
// plus O(T·B·H) transcendental functions; the forward saves O(T·B·H): the activations (T, B, 4H) and
// the states h, c (T + 1, B, H), step-major so that every step's rows are one contiguous (B × ·)
// matrix. tanh(c_s) is recomputed in the backward rather than saved. All GEMMs go through
// cpu::matmul (BLAS); the loops are serial (B·H per step is too little work to share between threads).
// The float32 cell (the gates' σ and tanh, the state update; forward and backward) is written once over
// Highway's vector ops and dispatched at run time to the best target the CPU has (SSSE3 … AVX-512,
// scalar as the fallback; cpu/vec_math-inl.h's σ by the scalar kernels' exp, Highway's tanh, 4 ulp);
// float64 (gradient checks) keeps the scalar loops with libm. Per row of H: ≈ 5·H/L σ/tanh vectors of
// ≈ 25 ops forward, ≈ 2·H/L tanh plus ≈ 20 multiply-adds backward. Accumulation is in the input dtype
// in a fixed order.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/cpu/lstm.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "core/cpu/vec_math-inl.h"

// --- per-target parts: the float32 cell ------------------------------------------------------------
HWY_BEFORE_NAMESPACE();
namespace lintra::kernels::cpu::HWY_NAMESPACE {

// a (4H) += xw + b_hh; acts = [σ(a_i), σ(a_f), tanh(a_g), σ(a_o)]; c = f⊙c_prev + i⊙g; h = o⊙tanh(c).
void LstmCellForwardF32(float* a, const float* xw, const float* bias, float* acts, const float* c_prev, float* c,
                        float* h, int64_t H) {
  const hn::ScalableTag<float> d;
  const int64_t L = int64_t(hn::Lanes(d));
  for (int64_t gate = 0; gate < 4; ++gate) {
    for (int64_t j = 0; j < H; j += L) {
      const int64_t n = std::min(L, H - j), k = gate * H + j;
      const auto v = hn::Add(load_at(d, a, k, n), hn::Add(load_at(d, xw, k, n), load_at(d, bias, k, n)));
      store_at(d, v, a, k, n);
      store_at(d, gate == 2 ? tanh_v(d, v) : sigmoid_v(d, v), acts, k, n);
    }
  }
  for (int64_t j = 0; j < H; j += L) {
    const int64_t n = std::min(L, H - j);
    const auto i = load_at(d, acts, j, n), f = load_at(d, acts, H + j, n);
    const auto g = load_at(d, acts, 2 * H + j, n), o = load_at(d, acts, 3 * H + j, n);
    const auto cj = hn::MulAdd(f, load_at(d, c_prev, j, n), hn::Mul(i, g));
    store_at(d, cj, c, j, n);
    store_at(d, hn::Mul(o, tanh_v(d, cj)), h, j, n);
  }
}

// ∂a (4H) from the step's activations, c, c_prev, the output gradient go and the carried δh, δc;
// δc becomes its value for the previous step.
void LstmCellBackwardF32(const float* acts, const float* c, const float* c_prev, const float* go, const float* dh,
                         float* dc, float* da, int64_t H) {
  const hn::ScalableTag<float> d;
  const int64_t L = int64_t(hn::Lanes(d));
  const auto one = hn::Set(d, 1.0f);
  for (int64_t j = 0; j < H; j += L) {
    const int64_t n = std::min(L, H - j);
    const auto i = load_at(d, acts, j, n), f = load_at(d, acts, H + j, n);
    const auto g = load_at(d, acts, 2 * H + j, n), o = load_at(d, acts, 3 * H + j, n);
    const auto dhj = hn::Add(load_at(d, dh, j, n), load_at(d, go, j, n));
    const auto tc = tanh_v(d, load_at(d, c, j, n));
    const auto dcj = hn::MulAdd(hn::Mul(dhj, o), hn::NegMulAdd(tc, tc, one), load_at(d, dc, j, n));
    store_at(d, hn::Mul(hn::Mul(dcj, g), hn::Mul(i, hn::Sub(one, i))), da, j, n);
    store_at(d, hn::Mul(hn::Mul(dcj, load_at(d, c_prev, j, n)), hn::Mul(f, hn::Sub(one, f))), da, H + j, n);
    store_at(d, hn::Mul(hn::Mul(dcj, i), hn::NegMulAdd(g, g, one)), da, 2 * H + j, n);
    store_at(d, hn::Mul(hn::Mul(dhj, tc), hn::Mul(o, hn::Sub(one, o))), da, 3 * H + j, n);
    store_at(d, hn::Mul(dcj, f), dc, j, n);
  }
}

}  // namespace lintra::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

// --- the kernels ---------------------------------------------------------------------------------------
#if HWY_ONCE
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/kernels.h"
#include "core/scalar_ops.h"

namespace lintra::kernels::cpu {

HWY_EXPORT(LstmCellForwardF32);
HWY_EXPORT(LstmCellBackwardF32);

namespace {

int64_t max_length(const std::vector<int64_t>& len) {
  int64_t m = 0;
  for (int64_t v : len) m = std::max(m, v);
  return m;
}

// The frame that step s of sequence b (s < T_b) reads and writes.
inline int64_t frame_of(int64_t s, int64_t T_b, bool reverse) { return reverse ? T_b - 1 - s : s; }

// One sequence's step, one row of H (gates of 4H): float32 on the dispatched vector path, float64 in
// the scalar loops below (the same formulas).

// a (4H) += xw + b_hh; acts = [σ(a_i), σ(a_f), tanh(a_g), σ(a_o)]; c = f⊙c_prev + i⊙g; h = o⊙tanh(c).
template <typename S>
void cell_forward_scalar(S* __restrict a, const S* __restrict xw, const S* __restrict bias, S* __restrict acts,
                  const S* __restrict c_prev, S* __restrict c, S* __restrict h, int64_t H) {
  for (int64_t k = 0; k < 4 * H; ++k) a[k] += xw[k] + bias[k];
  for (int64_t k = 0; k < 2 * H; ++k) acts[k] = scalar::sigmoid<S>(a[k]);  // i, f
  for (int64_t k = 2 * H; k < 3 * H; ++k) acts[k] = std::tanh(a[k]);     // g
  for (int64_t k = 3 * H; k < 4 * H; ++k) acts[k] = scalar::sigmoid<S>(a[k]);  // o
  for (int64_t j = 0; j < H; ++j) {
    const S cj = acts[H + j] * c_prev[j] + acts[j] * acts[2 * H + j];
    c[j] = cj;
    h[j] = acts[3 * H + j] * std::tanh(cj);
  }
}

// From the step's activations, its cell states c and c_prev, the output gradient go and the carried
// δh, δc: writes ∂a (4H) and replaces δc by its value for the previous step (δh is left as it is).
template <typename S>
void cell_backward_scalar(const S* __restrict acts, const S* __restrict c, const S* __restrict c_prev,
                   const S* __restrict go, const S* __restrict dh, S* __restrict dc, S* __restrict da, int64_t H) {
  for (int64_t j = 0; j < H; ++j) {
    const S i = acts[j], f = acts[H + j], g = acts[2 * H + j], o = acts[3 * H + j];
    const S dhj = dh[j] + go[j];
    const S tc = std::tanh(c[j]);
    const S dcj = dc[j] + dhj * o * (S(1) - tc * tc);
    da[j] = dcj * g * i * (S(1) - i);
    da[H + j] = dcj * c_prev[j] * f * (S(1) - f);
    da[2 * H + j] = dcj * i * (S(1) - g * g);
    da[3 * H + j] = dhj * tc * o * (S(1) - o);
    dc[j] = dcj * f;
  }
}

template <typename S>
void cell_forward(S* a, const S* xw, const S* bias, S* acts, const S* c_prev, S* c, S* h, int64_t H) {
  if constexpr (std::is_same_v<S, float>) HWY_DYNAMIC_DISPATCH(LstmCellForwardF32)(a, xw, bias, acts, c_prev, c, h, H);
  else cell_forward_scalar<S>(a, xw, bias, acts, c_prev, c, h, H);
}

template <typename S>
void cell_backward(const S* acts, const S* c, const S* c_prev, const S* go, const S* dh, S* dc, S* da, int64_t H) {
  if constexpr (std::is_same_v<S, float>) HWY_DYNAMIC_DISPATCH(LstmCellBackwardF32)(acts, c, c_prev, go, dh, dc, da, H);
  else cell_backward_scalar<S>(acts, c, c_prev, go, dh, dc, da, H);
}

template <typename S>
void lstm_forward_typed(const Tensor& xw_in, const Tensor& w_hh, const Tensor& b_hh_in, const Tensor& lengths,
                        bool reverse, Tensor& h, Tensor& acts, Tensor& hs, Tensor& cs) {
  const Tensor xw = xw_in.contiguous(), b_hh = b_hh_in.contiguous();
  const int64_t B = xw.size(0), T = xw.size(1), G = xw.size(2), H = G / 4;
  const std::vector<int64_t> len = lengths.to_vector<int64_t>();
  const int64_t T_max = max_length(len);
  const S* x = xw.data<S>();
  const S* bias = b_hh.data<S>();
  S* out = h.data<S>();
  S* act = acts.data<S>();
  S* hp = hs.data<S>();
  S* cp = cs.data<S>();
  std::fill(hp, hp + B * H, S(0));
  std::fill(cp, cp + B * H, S(0));
  Tensor pre = Tensor::empty({B, G}, xw.dtype());  // h_{s−1} W_hhᵀ, then a_s
  S* a = pre.data<S>();
  // W_hhᵀ (H, 4H) copied once to row-major: OpenBLAS then takes its small-matrix path for every step
  // (no packing of the operands), where the transposed view made it pack per step.
  const Tensor w_t = w_hh.transpose(0, 1).contiguous();
  for (int64_t s = 0; s < T; ++s) {
    const S* h_prev = hp + s * B * H;
    const S* c_prev = cp + s * B * H;
    S* h_next = hp + (s + 1) * B * H;
    S* c_next = cp + (s + 1) * B * H;
    S* as = act + s * B * G;
    if (s < T_max) table.matmul(hs.select(0, s), w_t, pre, false);
    for (int64_t b = 0; b < B; ++b) {
      const int64_t T_b = len[size_t(b)];
      if (s >= T_b) {  // padded: freeze the state, output 0 at frame s
        std::copy(h_prev + b * H, h_prev + (b + 1) * H, h_next + b * H);
        std::copy(c_prev + b * H, c_prev + (b + 1) * H, c_next + b * H);
        std::fill(as + b * G, as + (b + 1) * G, S(0));
        std::fill(out + (b * T + s) * H, out + (b * T + s + 1) * H, S(0));
        continue;
      }
      const int64_t tau = frame_of(s, T_b, reverse);
      S* hn = h_next + b * H;
      cell_forward<S>(a + b * G, x + (b * T + tau) * G, bias, as + b * G, c_prev + b * H, c_next + b * H, hn, H);
      std::copy(hn, hn + H, out + (b * T + tau) * H);
    }
  }
}

template <typename S>
void lstm_backward_typed(const Tensor& grad_h, const Tensor& w_hh, const Tensor& lengths, bool reverse,
                         const Tensor& acts, const Tensor& hs, const Tensor& cs, Tensor& dxw, Tensor& dw_hh,
                         Tensor& db_hh) {
  const Tensor go_c = grad_h.contiguous();
  const int64_t B = dxw.size(0), T = dxw.size(1), G = dxw.size(2), H = G / 4;
  const std::vector<int64_t> len = lengths.to_vector<int64_t>();
  const int64_t T_max = max_length(len);
  const S* go = go_c.data<S>();
  const S* act = acts.data<S>();
  const S* cp = cs.data<S>();
  S* dx = dxw.data<S>();
  Tensor dgates = Tensor::empty({T, B, G}, dxw.dtype());  // ∂a by step, for the ∂W_hh GEMM
  S* dg = dgates.data<S>();
  std::vector<S> dh(size_t(B * H), S(0)), dc(size_t(B * H), S(0));
  Tensor rec = Tensor::empty({B, H}, dxw.dtype());  // ∂a_s W_hh
  const S* r = rec.data<S>();
  for (int64_t s = T - 1; s >= 0; --s) {
    const S* as = act + s * B * G;
    const S* c_now = cp + (s + 1) * B * H;
    const S* c_prev = cp + s * B * H;
    S* dgs = dg + s * B * G;
    for (int64_t b = 0; b < B; ++b) {
      const int64_t T_b = len[size_t(b)];
      S* dgr = dgs + b * G;
      if (s >= T_b) {
        std::fill(dgr, dgr + G, S(0));
        std::fill(dx + (b * T + s) * G, dx + (b * T + s + 1) * G, S(0));
        continue;
      }
      const int64_t tau = frame_of(s, T_b, reverse);
      cell_backward<S>(as + b * G, c_now + b * H, c_prev + b * H, go + (b * T + tau) * H, dh.data() + b * H,
                       dc.data() + b * H, dgr, H);
      std::copy(dgr, dgr + G, dx + (b * T + tau) * G);
    }
    if (s == 0 || s >= T_max) continue;  // δh of h_0 is not needed; no valid row at s ≥ T_max
    table.matmul(dgates.select(0, s), w_hh, rec, false);
    for (int64_t b = 0; b < B; ++b)
      if (s < len[size_t(b)]) std::copy(r + b * H, r + (b + 1) * H, dh.data() + b * H);
  }
  if (dw_hh.defined()) {
    table.matmul(dgates.view({T * B, G}).transpose(0, 1), hs.narrow(0, 0, T).view({T * B, H}), dw_hh, false);
  }
  if (db_hh.defined()) {
    S* db = db_hh.data<S>();
    std::fill(db, db + G, S(0));
    for (int64_t row = 0; row < T * B; ++row) {
      const S* dgr = dg + row * G;
      for (int64_t k = 0; k < G; ++k) db[k] += dgr[k];
    }
  }
}

}  // namespace

void lstm_forward(const Tensor& xw, const Tensor& w_hh, const Tensor& b_hh, const Tensor& lengths, bool reverse,
                  Tensor& h, Tensor& acts, Tensor& hs, Tensor& cs) {
  dispatch_float(h.dtype(), "lstm_forward", [&]<typename S>() {
    lstm_forward_typed<S>(xw, w_hh, b_hh, lengths, reverse, h, acts, hs, cs);
  });
}

void lstm_backward(const Tensor& grad_h, const Tensor& w_hh, const Tensor& lengths, bool reverse, const Tensor& acts,
                   const Tensor& hs, const Tensor& cs, Tensor& dxw, Tensor& dw_hh, Tensor& db_hh) {
  dispatch_float(dxw.dtype(), "lstm_backward", [&]<typename S>() {
    lstm_backward_typed<S>(grad_h, w_hh, lengths, reverse, acts, hs, cs, dxw, dw_hh, db_hh);
  });
}

}  // namespace lintra::kernels::cpu
#endif  // HWY_ONCE
