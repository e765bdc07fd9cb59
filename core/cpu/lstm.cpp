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
// cpu::matmul (BLAS); the loops are serial (B·H per step is too little work to share between threads)
// and written so that GCC vectorises them (tanh_f32 below); accumulation is in the input dtype in a
// fixed order.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/kernels.h"
#include "core/scalar_ops.h"

namespace lintra::kernels::cpu {

namespace {

// tanh for float32 that the compiler can vectorise (scalar::exp_f32, no libm call: libm's tanhf, one
// call per element, took a third of the fused LSTM's time). For |x| ≥ 1/4, tanh|x| = (1 − e)/(1 + e)
// with e = e^{−2|x|}: the cancellation in 1 − e amplifies exp's error by e/(1 − e) ≤ 1.6 there. Below
// 1/4, the odd Taylor series to x⁹, whose first omitted term (1382/155925·x¹¹) is < 1e-8·|x|. Within
// 2.6 ulp of the exact tanh over all floats (checked exhaustively on [−12, 12]); odd by copysign.
inline float tanh_f32(float x) {
  const float ax = std::fabs(x);
  const float e = scalar::exp_f32(-2.0f * ax);
  const float big = (1.0f - e) / (1.0f + e);
  const float x2 = ax * ax;
  const float small =
      ax + ax * x2 * (-1.0f / 3 + x2 * (2.0f / 15 + x2 * (-17.0f / 315 + x2 * (62.0f / 2835))));
  return std::copysign(ax < 0.25f ? small : big, x);
}

template <typename S> inline S tanh_of(S x) { return std::tanh(x); }
template <> inline float tanh_of<float>(float x) { return tanh_f32(x); }

int64_t max_length(const std::vector<int64_t>& len) {
  int64_t m = 0;
  for (int64_t v : len) m = std::max(m, v);
  return m;
}

// The frame that step s of sequence b (s < T_b) reads and writes.
inline int64_t frame_of(int64_t s, int64_t T_b, bool reverse) { return reverse ? T_b - 1 - s : s; }

// One sequence's step, one row of H (gates of 4H): separate functions because GCC vectorises a loop
// over several arrays only when their restrict qualifiers sit on function parameters.

// a (4H) += xw + b_hh; acts = [σ(a_i), σ(a_f), tanh(a_g), σ(a_o)]; c = f⊙c_prev + i⊙g; h = o⊙tanh(c).
template <typename S>
void cell_forward(S* __restrict a, const S* __restrict xw, const S* __restrict bias, S* __restrict acts,
                  const S* __restrict c_prev, S* __restrict c, S* __restrict h, int64_t H) {
  for (int64_t k = 0; k < 4 * H; ++k) a[k] += xw[k] + bias[k];
  for (int64_t k = 0; k < 2 * H; ++k) acts[k] = scalar::sigmoid<S>(a[k]);  // i, f
  for (int64_t k = 2 * H; k < 3 * H; ++k) acts[k] = tanh_of<S>(a[k]);     // g
  for (int64_t k = 3 * H; k < 4 * H; ++k) acts[k] = scalar::sigmoid<S>(a[k]);  // o
  for (int64_t j = 0; j < H; ++j) {
    const S cj = acts[H + j] * c_prev[j] + acts[j] * acts[2 * H + j];
    c[j] = cj;
    h[j] = acts[3 * H + j] * tanh_of<S>(cj);
  }
}

// From the step's activations, its cell states c and c_prev, the output gradient go and the carried
// δh, δc: writes ∂a (4H) and replaces δc by its value for the previous step (δh is left as it is).
template <typename S>
void cell_backward(const S* __restrict acts, const S* __restrict c, const S* __restrict c_prev,
                   const S* __restrict go, const S* __restrict dh, S* __restrict dc, S* __restrict da, int64_t H) {
  for (int64_t j = 0; j < H; ++j) {
    const S i = acts[j], f = acts[H + j], g = acts[2 * H + j], o = acts[3 * H + j];
    const S dhj = dh[j] + go[j];
    const S tc = tanh_of<S>(c[j]);
    const S dcj = dc[j] + dhj * o * (S(1) - tc * tc);
    da[j] = dcj * g * i * (S(1) - i);
    da[H + j] = dcj * c_prev[j] * f * (S(1) - f);
    da[2 * H + j] = dcj * i * (S(1) - g * g);
    da[3 * H + j] = dhj * tc * o * (S(1) - o);
    dc[j] = dcj * f;
  }
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
    if (s < T_max) table.matmul(hs.select(0, s), w_t, pre);
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
    table.matmul(dgates.select(0, s), w_hh, rec);
    for (int64_t b = 0; b < B; ++b)
      if (s < len[size_t(b)]) std::copy(r + b * H, r + (b + 1) * H, dh.data() + b * H);
  }
  if (dw_hh.defined()) {
    table.matmul(dgates.view({T * B, G}).transpose(0, 1), hs.narrow(0, 0, T).view({T * B, H}), dw_hh);
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
