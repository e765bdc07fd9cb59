// ops/lstm.cpp — the fused recurrence of one LSTM direction (nn/lstm.h): the whole loop over time as
// one op, instead of ~15 graph nodes per step.
//
//   a_t = xw_t + b_hh + h_{t−1} W_hhᵀ,   [i, f, g, o] = [σ, σ, tanh, σ](a_t)      (gate order of PyTorch)
//   c_t = f ⊙ c_{t−1} + i ⊙ g,   h_t = o ⊙ tanh(c_t),   h_0 = c_0 = 0
// xw (B, T, 4H) = x W_ihᵀ + b_ih (a normal linear op), w_hh (4H, H), b_hh (4H), lengths int64 (B) in
// [0, T] → out (B, T, H): h_t where t < T_b; 0 where t ≥ T_b, and the state stays frozen there.
// With `reverse`, each sequence runs from its last valid frame T_b − 1 back to frame 0 (the backward
// direction of a bidirectional LSTM): equal to reversing every sequence within its length, running
// forward and reversing the output back, without the two gathers.
// The same function as the composition from Var ops (select, linear, chunk, σ, tanh, where per step);
// tests/autograd/test_lstm_recurrence_op.cpp checks the two against each other and against central
// differences. Time O(T·B·H·4H) per pass; saves O(T·B·H) (core/cpu/lstm.cpp).
#include "autograd/functional.h"

namespace lintra {

namespace {

void check_lstm_inputs(const Tensor& xw, const Tensor& w_hh, const Tensor& b_hh, const Tensor& lengths) {
  LINTRA_CHECK(xw.dim() == 3 && xw.size(2) % 4 == 0 && xw.size(2) > 0,
               "lstm_recurrence: xw must be (B, T, 4H) with H > 0, got {}", shape_str(xw.shape()));
  const int64_t B = xw.size(0), T = xw.size(1), H = xw.size(2) / 4;
  LINTRA_CHECK(w_hh.dim() == 2 && w_hh.size(0) == 4 * H && w_hh.size(1) == H,
               "lstm_recurrence: w_hh must be (4H, H) = ({}, {}) for xw {}, got {}", 4 * H, H,
               shape_str(xw.shape()), shape_str(w_hh.shape()));
  LINTRA_CHECK(b_hh.dim() == 1 && b_hh.size(0) == 4 * H, "lstm_recurrence: b_hh must be (4H) = ({}), got {}",
               4 * H, shape_str(b_hh.shape()));
  LINTRA_CHECK(is_floating(xw.dtype()) && w_hh.dtype() == xw.dtype() && b_hh.dtype() == xw.dtype(),
               "lstm_recurrence: xw, w_hh and b_hh must have one floating dtype, got {}, {} and {}", xw.dtype(),
               w_hh.dtype(), b_hh.dtype());
  LINTRA_CHECK(xw.device() == w_hh.device() && xw.device() == b_hh.device(),
               "lstm_recurrence: xw, w_hh and b_hh must be on one device");
  LINTRA_CHECK(lengths.dtype() == DType::i64 && lengths.dim() == 1 && lengths.size(0) == B,
               "lstm_recurrence: lengths must be int64 ({}), got {}", B, lengths.describe());
  const ops::IndexRange r = ops::index_range(lengths, 0, T + 1);
  LINTRA_CHECK(r.outside == 0, "lstm_recurrence: lengths must be in [0, {}], got {}", T, r.value);
}

}  // namespace

// Forward: kernels::lstm_forward, saving the gate activations and the states h, c of every step.
// Backward (backpropagation through time, core/cpu/lstm.cpp), with δh, δc carried from t + 1:
//   ∂a_t = [δc⊙g⊙i(1−i), δc⊙c_{t−1}⊙f(1−f), δc⊙i⊙(1−g²), δh⊙tanh(c_t)⊙o(1−o)]
//   with δh = (∂a_{t+1} W_hh) + ∂L/∂out_t and δc = δc_{t+1}⊙f_{t+1} + δh⊙o⊙(1 − tanh²(c_t));
//   ∂L/∂xw_t = ∂a_t,  ∂L/∂W_hh = Σ_t ∂a_tᵀ h_{t−1},  ∂L/∂b_hh = Σ_t Σ_b ∂a_t;  padded steps pass δh, δc.
Var lstm_recurrence(const Var& xw, const Var& w_hh, const Var& b_hh, const Tensor& lengths, bool reverse) {
  LINTRA_CHECK(xw.defined() && w_hh.defined() && b_hh.defined(),
               "lstm_recurrence: xw, w_hh and b_hh must be defined");
  const int64_t B = xw.dim() == 3 ? xw.size(0) : 0, T = xw.dim() == 3 ? xw.size(1) : 0;
  const Tensor len = lengths.defined() ? lengths : Tensor::full({B}, double(T), DType::i64, xw.data().device());
  check_lstm_inputs(xw.data(), w_hh.data(), b_hh.data(), len);
  const int64_t H = xw.size(2) / 4;
  const DType dt = xw.dtype();
  const Device dev = xw.data().device();
  Tensor h = Tensor::empty({B, T, H}, dt, dev);
  Tensor acts = Tensor::empty({T, B, 4 * H}, dt, dev);
  Tensor hs = Tensor::empty({T + 1, B, H}, dt, dev), cs = Tensor::empty({T + 1, B, H}, dt, dev);
  kernels::on(h).lstm_forward(xw.data(), w_hh.data(), b_hh.data(), len, reverse, h, acts, hs, cs);
  const InputInfo xi = info(xw), wi = info(w_hh), bi = info(b_hh);
  return make_result(h, "lstm_recurrence", {xw, w_hh, b_hh}, {w_hh.data(), len, acts, hs, cs},
                     [xi, wi, bi, reverse](const std::vector<Tensor>& s, const Tensor& g) {
                       const Tensor &w = s[0], &lens = s[1], &a = s[2], &hsv = s[3], &csv = s[4];
                       Tensor dxw = Tensor::empty(xi.shape, w.dtype(), w.device());
                       Tensor dw = wi.requires_grad ? Tensor::empty(wi.shape, w.dtype(), w.device()) : Tensor();
                       Tensor db = bi.requires_grad ? Tensor::empty(bi.shape, w.dtype(), w.device()) : Tensor();
                       kernels::on(dxw).lstm_backward(g, w, lens, reverse, a, hsv, csv, dxw, dw, db);
                       return std::vector<Tensor>{xi.requires_grad ? dxw : Tensor(), dw, db};
                     });
}

}  // namespace lintra
