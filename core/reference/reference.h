// reference/reference.h — slow, obvious versions of the kernels in core/kernels.h, used only as
// test oracles. Plain loops over multi-indices in float64 with std:: math; no OpenMP, no BLAS, no
// vectorisation tricks. Results are float64 tensors (u8/i64 for comparisons and indices).
#pragma once

#include "core/kernels.h"
#include "core/tensor.h"

namespace lintra::reference {

// The elementwise ops by the `reference` formulas of their structs (core/unary_ops.h, core/binary_ops.h).
Tensor unary(kernels::UnaryOp op, const Tensor& x, double a = 0, double b = 0);
// g·f'(x) by op's reference_backward (op must have a backward); g has x's shape.
Tensor unary_backward(kernels::UnaryOp op, const Tensor& g, const Tensor& x, double a = 0, double b = 0);
Tensor binary(kernels::BinaryOp op, const Tensor& a, const Tensor& b);
Tensor reduce(kernels::ReduceOp op, const Tensor& x, int64_t dim);  // keepdim
Tensor argmax(const Tensor& x, int64_t dim);                        // keepdim, i64
Tensor softmax(const Tensor& x, bool log);                          // over the last dim
Tensor layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps);
Tensor matmul(const Tensor& a, const Tensor& b);  // (…, M, K)·(…, K, N), broadcast batch
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index);
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
Tensor scatter_add(const Tensor& base, int64_t dim, const Tensor& index, const Tensor& src);
Tensor cumsum(const Tensor& x, int64_t dim, bool reverse);
Tensor sort_indices(const Tensor& x, int64_t dim, bool descending);  // stable (insertion sort)

// Causal linear product as the masked quadratic form out = (Q·Kᵀ ∘ tril)·V per (b, h), and its
// gradients from g: gq = (G·Vᵀ ∘ tril)·K, gk = (G·Vᵀ ∘ tril)ᵀ·Q, gv = (Q·Kᵀ ∘ tril)ᵀ·G
// (reference/causal_product.cpp). q, k (B, H, N, E), v and g (B, H, N, M).
Tensor causal_product(const Tensor& q, const Tensor& k, const Tensor& v);
struct CausalProductGrads {
  Tensor gq, gk, gv;
};
CausalProductGrads causal_product_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& g);

// --- reference/range.cpp ------------------------------------------------------------------------
Tensor arange(int64_t n, double start, double step);  // float64 (n)
// i64 (3): [values outside [low, high), flat position of the first (−1: none), its value (0: none)]
Tensor index_range(const Tensor& index, int64_t low, int64_t high);

// --- reference/masked_softmax.cpp: softmax over the last dim among allowed (u8, broadcast) entries;
// 0 elsewhere and on rows with nothing allowed ----------------------------------------------------
Tensor masked_softmax(const Tensor& x, const Tensor& allowed);

// --- reference/lsh_plan.cpp: reformer's round plan (core/kernels.h lsh_plan) with std::stable_sort,
// for chunks of C slots (C ≤ N) -----------------------------------------------------------------------
struct LshPlan {
  Tensor query_rows, window_rows, scatter;  // i64
  Tensor additive, row_ok;                  // float64
};
LshPlan lsh_plan(const Tensor& buckets, const Tensor& lengths, int64_t C, bool causal, bool masked, double self_logit);

// --- reference/mixture_of_logistics.cpp: the sampler of core/kernels.h sample_mol, row by row ---------
Tensor sample_mol(const Tensor& params, const Tensor& uniforms, int64_t levels);  // i64 (R)

// --- reference/ctc.cpp: CTC by enumerating every path of C^T_b labels (tiny sizes only): p is the sum
// over paths that collapse to the target of Π_t y_t(π_t), and ∂(−ln p)/∂z_t(k) = −Σ_{π : π_t = k} Π y / p ---
struct CtcResult {
  Tensor nll, grad;  // float64 (B), (B, T, C)
};
CtcResult ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                   const Tensor& target_lengths);

// --- reference/optimizer.cpp: the optimizer updates in float64, returning the new state ---------------
struct AdamState {
  Tensor p, m, v;
};
AdamState adam_update(const AdamState& s, const Tensor& g, double beta1, double beta2, double eps, double decay,
                      double step, bool rectified);
struct SgdState {
  Tensor p, buf;  // buf undefined without momentum
};
SgdState sgd_update(const SgdState& s, const Tensor& g, double lr, double momentum, double weight_decay, bool first);
double sum_squares(const Tensor& x);

}  // namespace lintra::reference
