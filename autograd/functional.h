// functional.h — the differentiable ops: free functions on Var, one line of documentation each.
// Each op computes its forward with core/ops.h and records a Node whose backward sits beside the
// forward in autograd/ops/<family>.cpp. Composite ops (written from other ops) need no backward.
//
// Broadcasting binary ops reduce each input's gradient back to its shape (ops::sum_to, one place).
#pragma once

#include <utility>
#include <vector>

#include "autograd/node.h"
#include "autograd/var.h"
#include "core/ops.h"
#include "core/rng.h"

namespace lintra {

using Dims = std::vector<int64_t>;

// --- elementwise (ops/elementwise.cpp) -----------------------------------------------------------
// A unary op of the op list (core/unary_ops.h) is differentiated by its own backward formula there:
// unary<Op> runs the forward kernel and records a node that calls the kernel unary_backward, saving
// only what the op's `saves` names.
Var unary(kernels::UnaryOp op, const Var& x, double a = 0, double b = 0);
template <class Op> Var unary(const Var& x, double a = 0, double b = 0) {
  static_assert(op::has_backward<Op>, "this op has no backward formula in core/unary_ops.h");
  return unary(kernels::unary_op<Op>, x, a, b);
}

inline Var neg(const Var& x) { return unary<op::Neg>(x); }
inline Var exp(const Var& x) { return unary<op::Exp>(x); }
inline Var log(const Var& x) { return unary<op::Log>(x); }
inline Var log1p(const Var& x) { return unary<op::Log1p>(x); }
inline Var sqrt(const Var& x) { return unary<op::Sqrt>(x); }
inline Var rsqrt(const Var& x) { return unary<op::Rsqrt>(x); }
inline Var abs(const Var& x) { return unary<op::Abs>(x); }
inline Var square(const Var& x) { return unary<op::Square>(x); }
inline Var tanh(const Var& x) { return unary<op::Tanh>(x); }
inline Var sigmoid(const Var& x) { return unary<op::Sigmoid>(x); }
inline Var log_sigmoid(const Var& x) { return unary<op::LogSigmoid>(x); }  // log σ(x), finite for any finite x
inline Var relu(const Var& x) { return unary<op::Relu>(x); }
inline Var elu(const Var& x, double alpha = 1.0) { return unary<op::Elu>(x, alpha); }
inline Var elu_feature(const Var& x) { return unary<op::EluFeature>(x); }  // elu(x) + 1, one pass
inline Var gelu(const Var& x) { return unary<op::Gelu>(x); }  // exact (erf) form
inline Var softplus(const Var& x) { return unary<op::Softplus>(x); }
inline Var pow(const Var& x, double p) { return unary<op::PowScalar>(x, p); }  // x^p
inline Var mul(const Var& x, double s) { return unary<op::MulScalar>(x, s); }
Var clamp(const Var& x, double low, double high);  // gradient 1 inside [low, high], 0 outside
Var add(const Var& x, double s);                   // passes the gradient through, no kernel

Var add(const Var& a, const Var& b);
Var sub(const Var& a, const Var& b);
Var mul(const Var& a, const Var& b);
Var div(const Var& a, const Var& b);
Var pow(const Var& a, const Var& b);  // a^b (a > 0 where b's gradient is needed)
Var maximum(const Var& a, const Var& b);  // ties split the gradient evenly
Var minimum(const Var& a, const Var& b);
// cond ? a : b (cond is a u8 tensor, not differentiable); masked_fill puts value where mask is 1.
Var where(const Tensor& cond, const Var& a, const Var& b);
Var masked_fill(const Var& x, const Tensor& mask, double value);

inline Var operator-(const Var& x) { return neg(x); }
inline Var operator+(const Var& a, const Var& b) { return add(a, b); }
inline Var operator-(const Var& a, const Var& b) { return sub(a, b); }
inline Var operator*(const Var& a, const Var& b) { return mul(a, b); }
inline Var operator/(const Var& a, const Var& b) { return div(a, b); }
inline Var operator+(const Var& a, double s) { return add(a, s); }
inline Var operator+(double s, const Var& a) { return add(a, s); }
inline Var operator-(const Var& a, double s) { return add(a, -s); }
inline Var operator-(double s, const Var& a) { return add(neg(a), s); }
inline Var operator*(const Var& a, double s) { return mul(a, s); }
inline Var operator*(double s, const Var& a) { return mul(a, s); }
inline Var operator/(const Var& a, double s) { return mul(a, 1.0 / s); }

// --- reductions (ops/reduce.cpp) -----------------------------------------------------------------
Var sum(const Var& x, const Dims& dims = {}, bool keepdim = false);
Var mean(const Var& x, const Dims& dims = {}, bool keepdim = false);
// Max/min over one dim: values (differentiable; the gradient goes to the first maximal element)
// and their int64 indices.
std::pair<Var, Tensor> max(const Var& x, int64_t dim, bool keepdim = false);
std::pair<Var, Tensor> min(const Var& x, int64_t dim, bool keepdim = false);
Var logsumexp(const Var& x, const Dims& dims, bool keepdim = false);

// --- shape (ops/shape.cpp) -----------------------------------------------------------------------
Var reshape(const Var& x, const Shape& shape);
Var flatten(const Var& x, int64_t start_dim = 0, int64_t end_dim = -1);
Var permute(const Var& x, const std::vector<int64_t>& dims);
Var transpose(const Var& x, int64_t d0, int64_t d1);
Var squeeze(const Var& x, int64_t dim);
Var unsqueeze(const Var& x, int64_t dim);
Var expand(const Var& x, const Shape& shape);
Var slice(const Var& x, int64_t dim, int64_t start, int64_t end, int64_t step = 1);
Var narrow(const Var& x, int64_t dim, int64_t start, int64_t length);
Var select(const Var& x, int64_t dim, int64_t index);
Var contiguous(const Var& x);
Var cat(const std::vector<Var>& xs, int64_t dim);
Var stack(const std::vector<Var>& xs, int64_t dim);
std::vector<Var> split(const Var& x, const std::vector<int64_t>& sizes, int64_t dim);
std::vector<Var> chunk(const Var& x, int64_t chunks, int64_t dim);
Var pad(const Var& x, const std::vector<int64_t>& pads, double value = 0);  // as ops::pad
Var repeat(const Var& x, const std::vector<int64_t>& repeats);

// --- indexing (ops/index.cpp) --------------------------------------------------------------------
Var index_select(const Var& x, int64_t dim, const Tensor& index);
Var gather(const Var& x, int64_t dim, const Tensor& index);
Var scatter_add(const Var& base, int64_t dim, const Tensor& index, const Var& src);
// weight (V, D), index (…) int64 → (…, D); the backward adds rows into the referenced rows only.
Var embedding(const Var& weight, const Tensor& index);
Var cumsum(const Var& x, int64_t dim, bool reverse = false);
// Stable sort along dim: sorted values (differentiable, through gather) and int64 indices.
std::pair<Var, Tensor> sort(const Var& x, int64_t dim, bool descending = false);

// --- linear algebra (ops/linalg.cpp) -------------------------------------------------------------
Var matmul(const Var& a, const Var& b);  // as ops::matmul, with broadcast batch dims
Var addmm(const Var& c, const Var& a, const Var& b);  // c + a·b in one GEMM (ops::addmm), c broadcasting
Var linear(const Var& x, const Var& weight, const Var& bias = Var());  // x·Wᵀ + b (addmm), W is (out, in)

// --- fused nn ops (ops/nn.cpp) -------------------------------------------------------------------
Var softmax(const Var& x, int64_t dim);
Var log_softmax(const Var& x, int64_t dim);
// softmax over the last dim among the `allowed` keys (u8, broadcasting to x): 0 on masked keys and on
// rows that allow nothing (ops::masked_softmax); its backward is the softmax backward.
Var masked_softmax(const Var& x, const Tensor& allowed);
Var layer_norm(const Var& x, const Var& gamma, const Var& beta, double eps = 1e-5);
// Inverted dropout: zeroes each element with probability p and scales the rest by 1/(1 − p);
// identity when !training or p == 0. The mask is drawn from gen.
Var dropout(const Var& x, double p, Generator& gen, bool training);
// dropout(relu(x)) and residual + dropout(x), each in one pass with the same mask and the same bits as
// the ops one after another (float32; other dtypes and !training take the composed form).
Var relu_dropout(const Var& x, double p, Generator& gen, bool training);
Var dropout_add(const Var& residual, const Var& x, double p, Generator& gen, bool training);
enum class Reduction { mean, sum, none };
// Cross entropy of logits (…, C) against int64 targets (…); targets equal to ignore_index
// contribute nothing, and `mean` divides by the number of the others.
Var cross_entropy(const Var& logits, const Tensor& target, int64_t ignore_index = -100,
                  Reduction reduction = Reduction::mean);

// --- attention kernels (ops/causal_linear.cpp) ---------------------------------------------------
// out_i = Σ_{j≤i} (q_i·k_j) v_j for q, k (B, H, N, E), v (B, H, N, M) → (B, H, N, M): the numerator of
// causal linear attention, fused (O(N·E·M), no N×N matrix) with the paper's constant-memory backward.
Var causal_linear_product(const Var& q, const Var& k, const Var& v);
// out_i = num_i / (q_i·Σ_{j≤i} k_j + eps) for q, k (B, H, N, E), num (B, H, N, M): causal linear
// attention's normaliser in one op (one sweep per head forward, two backward).
Var causal_linear_normalise(const Var& q, const Var& k, const Var& num, double eps);

// --- recurrent kernels (ops/lstm.cpp) ------------------------------------------------------------
// The recurrence of one LSTM direction, fused (one op for all T steps, BPTT backward): xw (B, T, 4H) =
// x W_ihᵀ + b_ih, w_hh (4H, H), b_hh (4H), lengths int64 (B) in [0, T] (undefined: all T) → h (B, T, H).
// Gates [i; f; g; o] = xw_t + b_hh + h_{t−1} W_hhᵀ, c_t = σ(f)c_{t−1} + σ(i)tanh(g), h_t = σ(o)tanh(c_t),
// h_0 = c_0 = 0; at t ≥ T_b the state is frozen and the output is 0. reverse: each sequence runs from
// frame T_b − 1 down to 0 instead. O(T·B·H²) time, O(T·B·H) saved for backward.
Var lstm_recurrence(const Var& xw, const Var& w_hh, const Var& b_hh, const Tensor& lengths, bool reverse = false);

}  // namespace lintra
