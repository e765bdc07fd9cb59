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

// --- elementwise (the ops of core/unary_ops.h and core/binary_ops.h) ----------------------------
Tensor unary(kernels::UnaryOp op, const Tensor& x, double a = 0, double b = 0);
template <class Op> Tensor unary(const Tensor& x, double a = 0, double b = 0) {
  return unary(kernels::unary_op<Op>, x, a, b);
}
// dx = op's backward g·f'(x) from grad and the saved x and/or y = op(x) that op's `saves` names (the
// other may be undefined).
Tensor unary_backward(kernels::UnaryOp op, const Tensor& grad, const Tensor& x, const Tensor& y, double a = 0,
                      double b = 0);
Tensor binary(kernels::BinaryOp op, const Tensor& a, const Tensor& b);
Tensor binary(kernels::BinaryOp op, const Tensor& a, double s);  // s as a 0-d tensor of a's dtype
template <class Op> Tensor binary(const Tensor& a, const Tensor& b) { return binary(kernels::binary_op<Op>, a, b); }
template <class Op> Tensor binary(const Tensor& a, double s) { return binary(kernels::binary_op<Op>, a, s); }

inline Tensor neg(const Tensor& x) { return unary<op::Neg>(x); }
inline Tensor exp(const Tensor& x) { return unary<op::Exp>(x); }
inline Tensor log(const Tensor& x) { return unary<op::Log>(x); }
inline Tensor log1p(const Tensor& x) { return unary<op::Log1p>(x); }
inline Tensor sqrt(const Tensor& x) { return unary<op::Sqrt>(x); }
inline Tensor rsqrt(const Tensor& x) { return unary<op::Rsqrt>(x); }
inline Tensor abs(const Tensor& x) { return unary<op::Abs>(x); }
inline Tensor square(const Tensor& x) { return unary<op::Square>(x); }
inline Tensor tanh(const Tensor& x) { return unary<op::Tanh>(x); }
inline Tensor sigmoid(const Tensor& x) { return unary<op::Sigmoid>(x); }
inline Tensor log_sigmoid(const Tensor& x) { return unary<op::LogSigmoid>(x); }
inline Tensor relu(const Tensor& x) { return unary<op::Relu>(x); }
inline Tensor gelu(const Tensor& x) { return unary<op::Gelu>(x); }
inline Tensor softplus(const Tensor& x) { return unary<op::Softplus>(x); }
inline Tensor sign(const Tensor& x) { return unary<op::Sign>(x); }
inline Tensor reciprocal(const Tensor& x) { return unary<op::Reciprocal>(x); }
inline Tensor elu(const Tensor& x, double alpha = 1.0) { return unary<op::Elu>(x, alpha); }
inline Tensor elu_feature(const Tensor& x) { return unary<op::EluFeature>(x); }  // elu(x) + 1
inline Tensor pow(const Tensor& x, double p) { return unary<op::PowScalar>(x, p); }
Tensor clamp(const Tensor& x, double low, double high);
inline Tensor add(const Tensor& x, double s) { return unary<op::AddScalar>(x, s); }
inline Tensor mul(const Tensor& x, double s) { return unary<op::MulScalar>(x, s); }
inline Tensor sub(const Tensor& x, double s) { return add(x, -s); }
inline Tensor rsub(double s, const Tensor& x) { return unary<op::RsubScalar>(x, s); }
inline Tensor div(const Tensor& x, double s) { return mul(x, 1.0 / s); }

inline Tensor add(const Tensor& a, const Tensor& b) { return binary<op::Add>(a, b); }
// a ← a + b in place (b broadcasts to a's shape; one dtype); bumps a's version. The caller makes sure
// nothing else reads a's storage expecting the old values (autograd sums gradients it alone holds).
void add_(Tensor& a, const Tensor& b);
inline Tensor sub(const Tensor& a, const Tensor& b) { return binary<op::Sub>(a, b); }
inline Tensor mul(const Tensor& a, const Tensor& b) { return binary<op::Mul>(a, b); }
inline Tensor div(const Tensor& a, const Tensor& b) { return binary<op::Div>(a, b); }
inline Tensor pow(const Tensor& a, const Tensor& b) { return binary<op::Pow>(a, b); }
inline Tensor maximum(const Tensor& a, const Tensor& b) { return binary<op::Maximum>(a, b); }
inline Tensor minimum(const Tensor& a, const Tensor& b) { return binary<op::Minimum>(a, b); }
// Comparisons return u8 (0/1) tensors; the double overloads compare with a scalar (ops::gt(x, 0.0)).
inline Tensor eq(const Tensor& a, const Tensor& b) { return binary<op::Eq>(a, b); }
inline Tensor ne(const Tensor& a, const Tensor& b) { return binary<op::Ne>(a, b); }
inline Tensor lt(const Tensor& a, const Tensor& b) { return binary<op::Lt>(a, b); }
inline Tensor le(const Tensor& a, const Tensor& b) { return binary<op::Le>(a, b); }
inline Tensor gt(const Tensor& a, const Tensor& b) { return binary<op::Gt>(a, b); }
inline Tensor ge(const Tensor& a, const Tensor& b) { return binary<op::Ge>(a, b); }
inline Tensor eq(const Tensor& a, double s) { return binary<op::Eq>(a, s); }
inline Tensor ne(const Tensor& a, double s) { return binary<op::Ne>(a, s); }
inline Tensor lt(const Tensor& a, double s) { return binary<op::Lt>(a, s); }
inline Tensor le(const Tensor& a, double s) { return binary<op::Le>(a, s); }
inline Tensor gt(const Tensor& a, double s) { return binary<op::Gt>(a, s); }
inline Tensor ge(const Tensor& a, double s) { return binary<op::Ge>(a, s); }
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
// c + a·b for a (…, M, K), b (…, K, N) (at least 2-d each) and c broadcasting to the product's shape
// (a bias (N), a residual (…, M, N)): c is copied into the result, which the GEMM then accumulates
// into (BLAS's beta = 1), so adding c costs no pass of its own.
Tensor addmm(const Tensor& c, const Tensor& a, const Tensor& b);

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
Tensor bernoulli(const Shape& shape, double p, Generator& gen, DType dtype = DType::f32,
                 Device device = Device::cpu);  // 1 w.p. p
// Dropout's mask as Philox blocks rather than a tensor. Drawing it reserves the blocks a float32
// bernoulli of n elements would (the generator moves exactly as before); apply_dropout multiplies a
// float32 tensor of n elements by it in one pass (kernels.h `dropout`), giving
// mul(x, mul(bernoulli(shape, keep, gen), 1 / keep)) bit for bit, and the same mask again for its gradient.
struct DropoutMask {
  int64_t n = 0;
  uint64_t first = 0, stream = 0, seed = 0;
  float keep = 1, scale = 1;
};
DropoutMask draw_dropout_mask(Generator& gen, int64_t n, double keep);
// gate, residual (float32, x's shape; undefined: absent): zero where gate ≤ 0 (relu before the
// dropout), then add residual (kernels.h `dropout`).
Tensor apply_dropout(const Tensor& x, const DropoutMask& mask, const Tensor& gate = Tensor(),
                     const Tensor& residual = Tensor());
// Drawn on the host (Generator::randint, randperm) and copied to `device`.
Tensor randint(const Shape& shape, int64_t low, int64_t high, Generator& gen, Device device = Device::cpu);  // i64
Tensor randperm(int64_t n, Generator& gen, Device device = Device::cpu);                                      // i64

// --- range checks --------------------------------------------------------------------------------
// The values of an int64 tensor outside [low, high): how many, and the first in row-major order with
// its flat position. One kernel and a copy of three numbers to the host, on any device: the way code
// above the kernels validates indices and lengths.
struct IndexRange {
  int64_t outside = 0;    // how many values lie outside
  int64_t position = -1;  // flat position of the first (−1 when none)
  int64_t value = 0;      // its value
};
IndexRange index_range(const Tensor& index, int64_t low, int64_t high);

// --- fused model ops (ops_models.cpp; contracts in core/kernels.h) -------------------------------
// softmax over the last dim of x among the `allowed` keys (u8, broadcasting to x): 0 on masked keys
// and on rows with no allowed key. The backward is softmax_backward.
Tensor masked_softmax(const Tensor& x, const Tensor& allowed);
// Reformer's plan of one hash round for chunks of `chunk` slots (nn/attention/reformer_attention.cpp).
struct LshPlan {
  Tensor query_rows, window_rows, scatter;  // i64 row indices
  Tensor additive, row_ok;                  // (BH, nc, C, W) and (BH, nc, C, 1) of `dtype`
};
LshPlan lsh_plan(const Tensor& buckets, const Tensor& lengths, int64_t chunk, bool causal, bool masked,
                 double self_logit, DType dtype);
// One draw per row of a (R, 3K) logistic mixture from (R, K + 1) float64 uniforms: i64 (R) levels, and the
// first non-finite parameter's row and component (−1 when none).
struct MixtureSample {
  Tensor values;
  int64_t bad_row = -1, bad_component = -1;
};
MixtureSample sample_mol(const Tensor& params, const Tensor& uniforms, int64_t levels);
// CTC loss and its gradient per sequence; status (B, 3) as core/kernels.h ctc_loss says (on the device).
struct CtcLoss {
  Tensor nll, grad, status;
};
CtcLoss ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                 const Tensor& target_lengths);

// --- optimizer updates, in place (ops_optim.cpp; the formulas in core/kernels.h) -----------------
// p, g and the state tensors: one shape, one float dtype, contiguous. The caller bumps p's version.
struct AdamStep {
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  double decay = 1;  // p ← p·decay (decoupled weight decay: 1 − lr·wd)
  double step = 0;   // the step size, learning rate and bias corrections included
  bool rectified = true;
};
void adam_update_(Tensor& p, const Tensor& g, Tensor& m, Tensor& v, const AdamStep& step);
void sgd_update_(Tensor& p, const Tensor& g, Tensor& buf, double lr, double momentum, double weight_decay, bool first);
// Σ x² in float64 (blocks in a fixed order: independent of the thread count), copied to the host.
double sum_squares(const Tensor& x);

// --- comparison helpers (tests) ------------------------------------------------------------------
// On any device (both operands on one); the answer is copied to the host.
double max_abs_diff(const Tensor& a, const Tensor& b);
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8);
bool all_finite(const Tensor& x);

}  // namespace lintra::ops
