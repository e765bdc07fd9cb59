// cuda/causal_product.h — the fused causal linear product of the CUDA table and the three products its
// backward is made of (cuda/kernel_table.cpp; the contract is core/kernels.h's, the math the CPU's,
// core/cpu/causal_product.cpp). Declared without Tensor or fmt so that nvcc compiles the definitions
// (cuda/causal_product.cu) and g++ the caller.
//
//   out_i = Σ_{j≤i} (a_i·b_j) c_j         (reverse: Σ_{j≥i})
// for a, b (BH, N, Dk) and c, out (BH, N, Dc), all contiguous. The forward is (q, k, v); the backward
// (Algorithm 1) is three of them: gq = (g, v, k), gk = reverse (v, g, q), gv = reverse (k, q, g).
//
// Chunked in three launches, so memory is linear in N and nothing N×N or N×Dk×Dc is formed: with
// chunks of C rows, (1) one block per (bh, chunk) sums its chunk's state ΔS_c = Σ_{j∈c} b_j c_jᵀ
// (Dk × Dc) into `scratch`, (2) a thread per (bh, e, m) turns those into exclusive prefix sums over the
// chunks (in place, in chunk order: deterministic), (3) one block per (bh, chunk) computes
// O_c = A_c P_c + tril(A_c B_cᵀ) C_c from its rows in shared memory (P_c: the prefix state). Cost:
// 2·N·Dk·Dc (states) + N·(Dk + Dc)·C (the triangles) multiply-adds per bh; scratch BH·⌈N/C⌉·Dk·Dc
// elements. C is the largest of 64, 32, 16 whose rows, state and C×C scores fit 48 KiB of shared
// memory (float32 heads to 64 × 64: the paper's are 32 × 32 and 64 × 64), else the largest that fits the
// device's opt-in maximum (227 KiB on the H100 and H200: float64 64 × 64 heads, the kernels asking for it);
// heads beyond that are refused.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/cuda/elementwise.h"  // Elem

namespace lintra::cuda {

// The chunk length for these dims on `device`, or 0 when even 16 rows do not fit (the caller refuses
// those); the most shared memory a block of `device` may ask for, in bytes (for that refusal's message).
int causal_product_chunk(int device, Elem type, int64_t Dk, int64_t Dc);
size_t causal_product_shared_limit(int device);

// out = the (reverse) causal product of a, b, c as above; scratch: BH·⌈N/C⌉·Dk·Dc elements of `type`.
void causal_product(int device, Elem type, const void* a, const void* b, const void* c, void* out, int64_t BH,
                    int64_t N, int64_t Dk, int64_t Dc, bool reverse, void* scratch);

}  // namespace lintra::cuda
