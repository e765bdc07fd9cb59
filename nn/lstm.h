// lstm.h — a multi-layer, optionally bidirectional LSTM over padded batches (the WSJ Bi-LSTM baseline,
// PAPER.md §2.3: 3 layers × 320, bidirectional). PyTorch's gate order and parameter layout:
//   [i; f; g; o] = W_ih x_t + b_ih + W_hh h_{t−1} + b_hh      (W_ih (4H, I), W_hh (4H, H), b (4H))
//   c_t = σ(f) ⊙ c_{t−1} + σ(i) ⊙ tanh(g),   h_t = σ(o) ⊙ tanh(c_t),   h_0 = c_0 = 0
// Every weight and bias ~ U(−1/√H, 1/√H). Parameters are named as PyTorch's: weight_ih_l<k>,
// weight_hh_l<k>, bias_ih_l<k>, bias_hh_l<k>, with the suffix _reverse for the backward direction.
//
// Variable lengths (packed-sequence semantics): sequence b has frames [0, T_b).
//   forward direction:  runs all T steps but keeps (h, c) where t ≥ T_b:  h = where(t < T_b, h_new, h)
//   backward direction: runs each sequence from its last valid frame T_b − 1 back to frame 0 — the same
//                       as reversing each sequence within its own length (a gather with index
//                       r_b(t) = T_b − 1 − t for t < T_b, t otherwise), running forward and reversing back.
// Outputs at t ≥ T_b are zero; frames there never influence outputs or gradients at valid frames.
// Layer k > 0 reads layer k − 1's output (B, T, D·H), D = 2 when bidirectional. Per direction: the
// input projection is one linear over all frames, the loop over time (either direction) is the fused
// op lstm_recurrence (autograd/functional.h; one graph node and a BPTT backward instead of ~15 nodes
// per step — tests/autograd/test_lstm_recurrence_op.cpp checks it against the same loop written from
// Var ops, gathers included). O(L·D·T·B·H·(I + H)) work, O(L·D·T·B·H) kept for backward.
#pragma once

#include "nn/module.h"

namespace lintra::nn {

class LSTM : public Module {
 public:
  LSTM(int64_t input_size, int64_t hidden_size, int64_t num_layers, bool bidirectional, Generator& init_gen);

  // x (B, T, input_size) float, lengths int64 (B) in [0, T] or undefined (all T) → (B, T, D·H).
  Var forward(const Var& x, const Tensor& lengths = Tensor()) const;

  int64_t input_size() const { return input_size_; }
  int64_t hidden_size() const { return hidden_; }
  int64_t num_layers() const { return layers_; }
  bool bidirectional() const { return bidirectional_; }
  int64_t output_size() const { return (bidirectional_ ? 2 : 1) * hidden_; }

  std::string type_name() const override { return "LSTM"; }
  std::string extra_repr() const override;

 private:
  struct Direction {
    Var w_ih, w_hh, b_ih, b_hh;
  };
  // One direction of one layer over time, x (B, T, in) → (B, T, H): left to right, or each sequence
  // from its last valid frame to its first when reverse.
  Var run(const Direction& d, const Var& x, const Tensor& lengths, bool reverse) const;

  int64_t input_size_, hidden_, layers_;
  bool bidirectional_;
  std::vector<Direction> dirs_;  // layer-major: [l0, l0_reverse, l1, …]
};

// The per-sequence time reversal used by the backward direction: int64 (B, T) with
// r[b, t] = T_b − 1 − t for t < T_b and t otherwise (an involution).
Tensor reverse_within_lengths_index(const Tensor& lengths, int64_t T);

}  // namespace lintra::nn
