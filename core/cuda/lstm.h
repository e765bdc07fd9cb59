// cuda/lstm.h — the per-step kernels of the LSTM recurrence on the GPU: one launch per time step for
// all sequences' cells (cuda/lstm.cu); the step loop and its GEMMs (cuBLAS) are host code,
// cuda/lstm_steps.cpp. Declared without Tensor or fmt so that nvcc compiles the definitions.
// The formulas are the CPU's (core/cpu/lstm.cpp, whose header has the math); gate order i, f, g, o.
//
// A thread per (b, j), j < H, owning its four gate entries: O(B·H) per step, memory-bound.
#pragma once

#include <cstdint>

#include "core/cuda/elementwise.h"  // Elem

namespace lintra::cuda {

// Rows of the step-s buffers (all contiguous): pre (B, 4H) = h_{s−1} W_hhᵀ on entry, a_s on exit;
// xw (B, T, 4H); acts (B, 4H) of step s; h_prev, c_prev, h_next, c_next (B, H); out (B, T, H).
struct LstmStep {
  int64_t s, B, T, H;
  bool reverse;
  const int64_t* lengths;  // (B), on the device
};

// For s < T_b: a = pre + xw[b, τ] + b_hh, acts = [σ, σ, tanh, σ], c_next, h_next, out[b, τ] = h_next;
// for s ≥ T_b: the state is copied, acts and out[b, s] are 0.
void lstm_cell_forward(int device, Elem type, const LstmStep& st, void* pre, const void* xw, const void* bias,
                       void* acts, const void* h_prev, const void* c_prev, void* h_next, void* c_next, void* out);

// For s < T_b: δh += go[b, τ], the cell's ∂a into dgates (B, 4H) of step s and into dxw[b, τ], δc ← δc·f;
// for s ≥ T_b: dgates and dxw[b, s] are 0, δh and δc unchanged. acts of step s, c_now = c_s, c_prev = c_{s−1}.
void lstm_cell_backward(int device, Elem type, const LstmStep& st, const void* acts, const void* c_now,
                        const void* c_prev, const void* go, void* dh, void* dc, void* dgates, void* dxw);

// δh[b] = rec[b] (= ∂a_s W_hh) for the sequences with s < T_b.
void lstm_take_recurrent(int device, Elem type, const LstmStep& st, const void* rec, void* dh);

}  // namespace lintra::cuda
