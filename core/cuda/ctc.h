// cuda/ctc.h — CTC forward–backward on the GPU (kernels.h ctc_loss; the recursions are the CPU's,
// core/cpu/ctc.cpp, in float64 in log space; the math is in nn/losses/ctc.h). Declared without Tensor
// or fmt so that nvcc compiles the definitions (cuda/ctc.cu) and g++ the caller.
//
// One block per sequence: its threads share the states s of α and β (a barrier per frame), then each
// thread takes frames t and adds −exp(α + β − ln p) over the states in order, so every gradient entry
// is summed in the CPU's order (no atomics). α and β live in `scratch` (2·B·T·L doubles, L = 2S + 1);
// the loss and the gradient come out in float64 (nll (B), grad (B, T, C), zeroed here) for the caller to
// cast. Time O(T_b·L) per sequence on L threads plus O(T_b·L) for the gradient.
#pragma once

#include <cstdint>

namespace lintra::cuda {

// z: float64 log-probabilities (B, T, C) contiguous; targets (B, S), lengths (B) int64 on the device;
// status (B, 3) int64 as kernels.h says.
void ctc_loss(int device, const double* z, const int64_t* targets, const int64_t* input_lengths,
              const int64_t* target_lengths, int64_t B, int64_t T, int64_t C, int64_t S, double* nll, double* grad,
              int64_t* status, double* scratch);

}  // namespace lintra::cuda
