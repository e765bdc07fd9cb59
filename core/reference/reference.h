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

}  // namespace lintra::reference
