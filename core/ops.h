// ops.h — tensor math without autograd: every function returns a fresh tensor (or views where
// documented) and validates its inputs, throwing lintra::Error that names the op and the shapes.
// autograd/ builds its differentiable ops and their backward passes from these.
//
// Binary ops broadcast (NumPy rules, core/shape.h) and require equal dtypes; a double argument
// takes the tensor's dtype. Reductions take a list of dims (negative allowed; empty = all dims).
#pragma once

#include <utility>
#include <vector>

#include "core/kernels.h"
#include "core/rng.h"
#include "core/tensor.h"

namespace lintra::ops {

using Dims = std::vector<int64_t>;

// --- elementwise ---------------------------------------------------------------------------------
Tensor unary(kernels::UnaryOp op, const Tensor& x, double a = 0, double b = 0);
Tensor binary(kernels::BinaryOp op, const Tensor& a, const Tensor& b, const char* name);

inline Tensor neg(const Tensor& x) { return unary(kernels::UnaryOp::neg, x); }
inline Tensor exp(const Tensor& x) { return unary(kernels::UnaryOp::exp, x); }
inline Tensor log(const Tensor& x) { return unary(kernels::UnaryOp::log, x); }
inline Tensor log1p(const Tensor& x) { return unary(kernels::UnaryOp::log1p, x); }
inline Tensor sqrt(const Tensor& x) { return unary(kernels::UnaryOp::sqrt, x); }
inline Tensor rsqrt(const Tensor& x) { return unary(kernels::UnaryOp::rsqrt, x); }
inline Tensor abs(const Tensor& x) { return unary(kernels::UnaryOp::abs, x); }
inline Tensor square(const Tensor& x) { return unary(kernels::UnaryOp::square, x); }
inline Tensor tanh(const Tensor& x) { return unary(kernels::UnaryOp::tanh, x); }
inline Tensor sigmoid(const Tensor& x) { return unary(kernels::UnaryOp::sigmoid, x); }
inline Tensor relu(const Tensor& x) { return unary(kernels::UnaryOp::relu, x); }
inline Tensor gelu(const Tensor& x) { return unary(kernels::UnaryOp::gelu, x); }
inline Tensor softplus(const Tensor& x) { return unary(kernels::UnaryOp::softplus, x); }
inline Tensor sign(const Tensor& x) { return unary(kernels::UnaryOp::sign, x); }
inline Tensor reciprocal(const Tensor& x) { return unary(kernels::UnaryOp::reciprocal, x); }
inline Tensor elu(const Tensor& x, double alpha = 1.0) { return unary(kernels::UnaryOp::elu, x, alpha); }
inline Tensor pow(const Tensor& x, double p) { return unary(kernels::UnaryOp::pow_scalar, x, p); }
Tensor clamp(const Tensor& x, double low, double high);
inline Tensor add(const Tensor& x, double s) { return unary(kernels::UnaryOp::add_scalar, x, s); }
inline Tensor mul(const Tensor& x, double s) { return unary(kernels::UnaryOp::mul_scalar, x, s); }
inline Tensor sub(const Tensor& x, double s) { return add(x, -s); }
inline Tensor rsub(double s, const Tensor& x) { return unary(kernels::UnaryOp::rsub_scalar, x, s); }
inline Tensor div(const Tensor& x, double s) { return mul(x, 1.0 / s); }

inline Tensor add(const Tensor& a, const Tensor& b) { return binary(kernels::BinaryOp::add, a, b, "add"); }
inline Tensor sub(const Tensor& a, const Tensor& b) { return binary(kernels::BinaryOp::sub, a, b, "sub"); }
inline Tensor mul(const Tensor& a, const Tensor& b) { return binary(kernels::BinaryOp::mul, a, b, "mul"); }
inline Tensor div(const Tensor& a, const Tensor& b) { return binary(kernels::BinaryOp::div, a, b, "div"); }
inline Tensor pow(const Tensor& a, const Tensor& b) { return binary(kernels::BinaryOp::pow, a, b, "pow"); }
inline Tensor maximum(const Tensor& a, const Tensor& b) { return binary(kernels::BinaryOp::maximum, a, b, "maximum"); }
inline Tensor minimum(const Tensor& a, const Tensor& b) { return binary(kernels::BinaryOp::minimum, a, b, "minimum"); }
// Comparisons return u8 (0/1) tensors.
inline Tensor eq(const Tensor& a, const Tensor& b) { return binary(kernels::BinaryOp::eq, a, b, "eq"); }
inline Tensor ne(const Tensor& a, const Tensor& b) { return binary(kernels::BinaryOp::ne, a, b, "ne"); }
inline Tensor lt(const Tensor& a, const Tensor& b) { return binary(kernels::BinaryOp::lt, a, b, "lt"); }
inline Tensor le(const Tensor& a, const Tensor& b) { return binary(kernels::BinaryOp::le, a, b, "le"); }
inline Tensor gt(const Tensor& a, const Tensor& b) { return binary(kernels::BinaryOp::gt, a, b, "gt"); }
inline Tensor ge(const Tensor& a, const Tensor& b) { return binary(kernels::BinaryOp::ge, a, b, "ge"); }
Tensor compare(kernels::BinaryOp op, const Tensor& a, double s);  // e.g. compare(gt, x, 0.0)
Tensor logical_not(const Tensor& mask);                           // u8 → u8

// out = cond ? a : b (broadcasting; cond is u8). masked_fill: x where !mask, value where mask.
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor masked_fill(const Tensor& x, const Tensor& mask, double value);

// --- reductions ----------------------------------------------------------------------------------
Tensor sum(const Tensor& x, const Dims& dims = {}, bool keepdim = false);
Tensor mean(const Tensor& x, const Dims& dims = {}, bool keepdim = false);
Tensor amax(const Tensor& x, const Dims& dims = {}, bool keepdim = false);
Tensor amin(const Tensor& x, const Dims& dims = {}, bool keepdim = false);
// Max/min over one dim with the (first) index where it occurs.
std::pair<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim = false);
std::pair<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor argmax(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor argmin(const Tensor& x, int64_t dim, bool keepdim = false);
// log Σ exp(x) over dims, computed as m + log Σ exp(x − m) with m = max (−inf rows give −inf).
Tensor logsumexp(const Tensor& x, const Dims& dims, bool keepdim = false);
// Sums x over the dims that broadcasting added or expanded, so that the result has `shape`.
Tensor sum_to(const Tensor& x, const Shape& shape);

// --- nn kernels ----------------------------------------------------------------------------------
Tensor softmax(const Tensor& x, int64_t dim);
Tensor log_softmax(const Tensor& x, int64_t dim);
Tensor softmax_backward(const Tensor& y, const Tensor& dy, int64_t dim, bool log);
struct LayerNormResult {
  Tensor y, mean, rstd;  // mean and rstd have x's shape without the last dim
};
LayerNormResult layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps);
struct LayerNormGrads {
  Tensor dx, dgamma, dbeta;
};
LayerNormGrads layer_norm_backward(const Tensor& dy, const Tensor& x, const LayerNormResult& fwd,
                                   const Tensor& gamma);

// --- linear algebra ------------------------------------------------------------------------------
// a (…, M, K) · b (…, K, N) with broadcast batch dims; 1-d operands are treated as a row (a) or a
// column (b) and the added dim is removed from the result.
Tensor matmul(const Tensor& a, const Tensor& b);

// --- shape ---------------------------------------------------------------------------------------
Tensor cat(const std::vector<Tensor>& xs, int64_t dim);
Tensor stack(const std::vector<Tensor>& xs, int64_t dim);
std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t dim);  // views
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim);                     // views
// pads[2k], pads[2k+1] = padding before/after of dim (ndim − 1 − k): the last dim first, as PyTorch.
Tensor pad(const Tensor& x, const std::vector<int64_t>& pads, double value = 0);
Tensor repeat(const Tensor& x, const std::vector<int64_t>& repeats);

// --- indexing ------------------------------------------------------------------------------------
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index);
Tensor scatter_add(const Tensor& base, int64_t dim, const Tensor& index, const Tensor& src);
Tensor index_add(const Tensor& base, int64_t dim, const Tensor& index, const Tensor& src);
Tensor embedding(const Tensor& weight, const Tensor& index);  // weight (V, D), index (…) → (…, D)
Tensor one_hot(const Tensor& index, int64_t classes, DType dtype = DType::f32);

// --- scans and sorting ---------------------------------------------------------------------------
Tensor cumsum(const Tensor& x, int64_t dim, bool reverse = false);
std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t dim, bool descending = false);  // stable
Tensor argsort(const Tensor& x, int64_t dim, bool descending = false);

// --- random --------------------------------------------------------------------------------------
Tensor bernoulli(const Shape& shape, double p, Generator& gen, DType dtype = DType::f32);  // 1 w.p. p
Tensor randint(const Shape& shape, int64_t low, int64_t high, Generator& gen);             // i64
Tensor randperm(int64_t n, Generator& gen);                                                // i64

// --- comparison helpers (tests) ------------------------------------------------------------------
double max_abs_diff(const Tensor& a, const Tensor& b);
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8);
bool all_finite(const Tensor& x);

}  // namespace lintra::ops
