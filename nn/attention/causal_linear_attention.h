// causal_linear_attention.h — the numerator of causal linear attention, exposed so that the
// composed and fused forms can be compared (tests) and swapped (one line in the .cpp).
//
//   V̄_i = Σ_{j≤i} (φQ_i · φK_j) V_j = φQ_iᵀ S_i,   S_i = Σ_{j≤i} φK_j V_jᵀ   (PAPER.md §3 eqs 9–10)
//   phi_q (B, H, N, E), phi_k (B, H, N, E), v (B, H, N, M) → (B, H, N, M)
#pragma once

#include "autograd/var.h"

namespace lintra::nn {

// What "causal-linear" uses.
Var causal_numerator(const Var& phi_q, const Var& phi_k, const Var& v);

// Composed from autograd ops: the outer products φK_j ⊗ V_j (B, H, N, E, M), a cumsum over N,
// then one (1×E)·(E×M) product per position. O(B·H·N·E·M) time and memory: linear in N, but it
// materialises every S_i; the fused kernel (PAPER.md §4.2) keeps one E×M state per (b, h).
Var causal_numerator_composed(const Var& phi_q, const Var& phi_k, const Var& v);

}  // namespace lintra::nn
