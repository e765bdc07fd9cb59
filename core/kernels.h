// kernels.h — the one list of device kernels.
//
// Every kernel is declared once, here, by LINTRA_KERNEL_LIST; the list is instantiated three times:
// `lintra::kernels` (the dispatcher, kernels.cpp), `lintra::kernels::cpu` (core/cpu/*.cpp) and, in a
// CUDA build, `lintra::kernels::cuda` (core/cuda/*.cu). A kernel missing on a device is therefore a
// link error, never a run-time surprise. Slow, obvious versions of the same kernels live in
// core/reference/ and serve only as test oracles.
//
// Conventions: inputs may have any strides; `out` arguments are preallocated by the caller (core/ops.cpp),
// contiguous, with the documented shape and dtype. Kernels validate nothing the caller already checked.
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace lintra {
class Generator;
}

namespace lintra::kernels {

enum class UnaryOp : uint8_t {
  neg, exp, log, log1p, sqrt, rsqrt, abs, square, tanh, sigmoid, relu, gelu, softplus, sign,
  reciprocal,
  elu,         // a = alpha
  pow_scalar,  // a = exponent
  clamp,       // a = low, b = high
  add_scalar,  // a
  mul_scalar,  // a
  rsub_scalar, // a − x
};

enum class BinaryOp : uint8_t {
  add, sub, mul, div, pow, maximum, minimum,
  // comparisons: out is u8 (0/1)
  eq, ne, lt, le, gt, ge,
  // derivative helpers: out = a · f'(b) where a is the incoming gradient and b the op's input
  relu_backward, gelu_backward, elu_backward, sigmoid_backward /* b = sigmoid output */,
  tanh_backward /* b = tanh output */,
};

enum class ReduceOp : uint8_t { sum, max, min };

// Names for error messages.
constexpr const char* op_name(UnaryOp op) {
  constexpr const char* names[] = {"neg",  "exp",     "log",     "log1p", "sqrt", "rsqrt",     "abs",
                                   "square", "tanh",  "sigmoid", "relu",  "gelu", "softplus",  "sign",
                                   "reciprocal", "elu", "pow",   "clamp", "add",  "mul",       "rsub"};
  static_assert(sizeof(names) / sizeof(names[0]) == size_t(UnaryOp::rsub_scalar) + 1);
  return names[int(op)];
}
constexpr const char* op_name(BinaryOp op) {
  constexpr const char* names[] = {"add", "sub", "mul", "div", "pow", "maximum", "minimum", "eq", "ne", "lt", "le",
                                   "gt",  "ge",  "relu_backward", "gelu_backward", "elu_backward",
                                   "sigmoid_backward", "tanh_backward"};
  static_assert(sizeof(names) / sizeof(names[0]) == size_t(BinaryOp::tanh_backward) + 1);
  return names[int(op)];
}

}  // namespace lintra::kernels

// clang-format off
#define LINTRA_KERNEL_LIST                                                                                  \
  /* out[i] = src[i] (src broadcasts to out's shape; dtypes may differ: a cast) */                           \
  void copy(const Tensor& src, Tensor& out);                                                                \
  void fill(Tensor& out, double value);                                                                     \
  /* out = op(x); float dtypes, except neg/abs/square/add/mul_scalar also on int64 */                        \
  void unary(UnaryOp op, const Tensor& x, Tensor& out, double a, double b);                                 \
  /* out = op(a, b); a and b broadcast to out's shape and have out's dtype (comparisons: out is u8) */        \
  void binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out);                                  \
  /* out = cond ? a : b, all broadcasting to out's shape; cond is u8 */                                      \
  void where(const Tensor& cond, const Tensor& a, const Tensor& b, Tensor& out);                            \
  /* out (x's shape with dim → 1) = reduction of x over dim */                                               \
  void reduce(ReduceOp op, const Tensor& x, int64_t dim, Tensor& out);                                      \
  /* values and i64 indices (x's shape with dim → 1) of the max (is_max) or min over dim; first on ties */   \
  void arg_reduce(bool is_max, const Tensor& x, int64_t dim, Tensor& values, Tensor& indices);              \
  /* softmax (log_softmax when log) over the last dim of x */                                                \
  void softmax_forward(const Tensor& x, bool log, Tensor& out);                                             \
  /* dx from y = the forward's output and dy, over the last dim */                                           \
  void softmax_backward(const Tensor& y, const Tensor& dy, bool log, Tensor& dx);                           \
  /* layer norm over the last dim D of x (R rows): y = (x − μ)·rstd·γ + β; mean, rstd are (R) */             \
  void layer_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps,             \
                          Tensor& y, Tensor& mean, Tensor& rstd);                                           \
  void layer_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& mean, const Tensor& rstd,       \
                           const Tensor& gamma, Tensor& dx, Tensor& dgamma, Tensor& dbeta);                 \
  /* out (…, M, N) = a (…, M, K) · b (…, K, N) with broadcast batch dims; any strides */                     \
  void matmul(const Tensor& a, const Tensor& b, Tensor& out);                                               \
  /* out = x.index_select(dim, index) ; index is i64 1-d */                                                  \
  void index_select(const Tensor& x, int64_t dim, const Tensor& index, Tensor& out);                        \
  /* out[i][j] = x[i][index[i][j]] along dim (index has out's shape) */                                      \
  void gather(const Tensor& x, int64_t dim, const Tensor& index, Tensor& out);                              \
  /* out[…index[i][j]…] += src[i][j] along dim, in place on out (which is contiguous) */                     \
  void scatter_add(Tensor& out, int64_t dim, const Tensor& index, const Tensor& src);                       \
  /* out[index[i]] += src[i] along dim (rows of src added to rows of out), in place */                       \
  void index_add(Tensor& out, int64_t dim, const Tensor& index, const Tensor& src);                         \
  /* inclusive prefix sum over dim; from the end when reverse */                                             \
  void cumsum(const Tensor& x, int64_t dim, bool reverse, Tensor& out);                                     \
  /* stable sort over dim: values (x's dtype) and i64 indices */                                             \
  void sort(const Tensor& x, int64_t dim, bool descending, Tensor& values, Tensor& indices);                \
  /* random fills from a Philox generator (core/rng.h); float outputs */                                     \
  void uniform(Tensor& out, Generator& gen, double low, double high);                                       \
  void normal(Tensor& out, Generator& gen, double mean, double std);                                       \
  /* causal linear product (the numerator of causal linear attention; PAPER.md §3):                          \
     out_i = Σ_{j≤i} (q_i·k_j) v_j for q, k (B, H, N, E), v (B, H, N, M) → out (B, H, N, M); any strides.     \
     O(B·H·N·E·M) time, O(E·M) state per thread: no N×N or N×E×M intermediate (cpu/causal_product.cpp). */    \
  void causal_product_forward(const Tensor& q, const Tensor& k, const Tensor& v, Tensor& out);              \
  /* its gradients from grad_out g (B, H, N, M), Algorithm 1 (recomputes the states, stores none):            \
     gq_i = S_i g_i with S_i = Σ_{j≤i} k_j v_jᵀ; gk_i = R_i v_i, gv_i = R_iᵀ k_i with R_i = Σ_{j≥i} q_j g_jᵀ.   \
     gq, gk (B, H, N, E) and gv (B, H, N, M) are overwritten. About 2.5× the forward's multiply-adds.      */ \
  void causal_product_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& grad_out,      \
                               Tensor& gq, Tensor& gk, Tensor& gv);                                         \
  /* the recurrence of one LSTM direction (nn/lstm.h, gate order i, f, g, o; cpu/lstm.cpp): xw (B, T, 4H) =     \
     the input projection, w_hh (4H, H), b_hh (4H), lengths i64 (B) in [0, T] → h (B, T, H), zero at t ≥ T_b     \
     (the state is frozen there). Step s reads and writes frame s, or frame T_b − 1 − s when reverse (each      \
     sequence runs from its last valid frame back to its first). Saves, by step: acts (T, B, 4H) =             \
     [σ(i), σ(f), tanh(g), σ(o)] (0 at padded steps) and the states hs, cs (T + 1, B, H), row 0 = h_0 = c_0 = 0. \
     Per step one GEMM (B × H)·(H × 4H).                                                                     */ \
  void lstm_forward(const Tensor& xw, const Tensor& w_hh, const Tensor& b_hh, const Tensor& lengths,            \
                    bool reverse, Tensor& h, Tensor& acts, Tensor& hs, Tensor& cs);                             \
  /* its backpropagation through time from grad_h (B, T, H): dxw (B, T, 4H) = ∂L/∂(gate pre-activations),      \
     dw_hh (4H, H) and db_hh (4H), each overwritten; dw_hh, db_hh may be undefined (not wanted).              \
     Per step one GEMM (B × 4H)·(4H × H), then dw_hh as one GEMM (4H × T·B)·(T·B × H).                      */ \
  void lstm_backward(const Tensor& grad_h, const Tensor& w_hh, const Tensor& lengths, bool reverse,             \
                     const Tensor& acts, const Tensor& hs, const Tensor& cs, Tensor& dxw, Tensor& dw_hh,       \
                     Tensor& db_hh);
// clang-format on

namespace lintra::kernels {
LINTRA_KERNEL_LIST
}
namespace lintra::kernels::cpu {
LINTRA_KERNEL_LIST
}
#ifdef LINTRA_HAVE_CUDA
namespace lintra::kernels::cuda {
LINTRA_KERNEL_LIST
}
#endif
