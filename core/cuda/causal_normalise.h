// cuda/causal_normalise.h — causal linear attention's normaliser on the GPU (the contract is
// core/kernels.h's `causal_normalise_forward|backward`, the math core/cpu/causal_normalise.cpp's).
// Declared without Tensor so that nvcc compiles the definitions (cuda/causal_normalise.cu).
//
//   den_i = q_i·Σ_{j≤i} k_j + eps, out_i = num_i / den_i;
//   backward: c_i = −(g_i·out_i)/den_i, gnum_i = g_i/den_i, gq_i = c_i Σ_{j≤i} k_j, gk_j = Σ_{i≥j} c_i q_i.
// One warp per (b, h) walks its N rows in order (the prefix sums are sequential), its lanes over E and
// M, the running sum in shared memory and each dot product a warp reduction. q and k rows at a row
// stride (unit last stride); num, g, out, den contiguous. O(B·H·N·(E + M)) work, N steps per warp.
#pragma once

#include <cstdint>

#include "core/cuda/elementwise.h"  // Elem

namespace lintra::cuda {

struct NormaliseDims {
  int64_t BH, H, N, E, M;
  int64_t q_bs, q_hs, q_rs, k_bs, k_hs, k_rs;  // q and k strides over b, h and rows
};

void causal_normalise_forward(int device, Elem type, const NormaliseDims& dm, const void* q, const void* k,
                              const void* num, double eps, void* out, void* den);
// c: BH·N elements of scratch of `type`.
void causal_normalise_backward(int device, Elem type, const NormaliseDims& dm, const void* q, const void* k,
                               const void* out, const void* den, const void* g, void* gnum, void* gq, void* gk,
                               void* c);

}  // namespace lintra::cuda
