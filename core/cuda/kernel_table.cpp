// cuda/kernel_table.cpp — the CUDA device's kernel table (core/kernels.h), host code (g++).
//
// Every kernel of the list has a CUDA version: copy (with casts and broadcasting), fill, unary,
// unary_backward, binary and where (the CPU's scalar formulas, cuda/elementwise.cu); the Adam/RAdam and
// SGD updates, arange and the index range check (cuda/updates.cu); index_select, gather, scatter_add and
// index_add (cuda/index.cu, the adds atomic); the causal linear product and its backward
// (cuda/causal_product.cu); reduce, arg_reduce, cumsum, sum_squares, softmax, the masked softmax and
// layer norm forward and backward (cuda/rows.cu); sort (CUB, cuda/sort.cu); uniform and normal fills and
// dropout (the CPU's Philox streams, cuda/random.cu); the mixture-of-logistics sampler
// (cuda/mixture_of_logistics.cu); CTC (cuda/ctc.cu); reformer's round plan (cuda/lsh_plan.cu); the LSTM
// recurrence (a cell kernel per step between cuBLAS GEMMs, cuda/lstm.cu and lstm_steps.cpp); and matmul
// (cuBLAS, cuda/matmul.cpp). The table's designated initializers leave none out (a missing one does not
// compile).
//
// The entries here turn Tensors into the launchers' plain descriptions (cuda::Shape, Operand, Target:
// each operand's strides over the output's shape, 0 where it broadcasts).
#include <algorithm>
#include <vector>

#include "core/cuda/causal_normalise.h"
#include "core/cuda/causal_product.h"
#include "core/cuda/ctc.h"
#include "core/cuda/elementwise.h"
#include "core/cuda/index.h"
#include "core/cuda/lsh_plan.h"
#include "core/cuda/mixture_of_logistics.h"
#include "core/cuda/random.h"
#include "core/cuda/rows.h"
#include "core/cuda/sort.h"
#include "core/cuda/table.h"
#include "core/cuda/updates.h"
#include "core/kernel_access.h"
#include "core/ops.h"
#include "core/rng.h"

namespace lintra::kernels::cuda_backend {

namespace {

lintra::cuda::Elem elem(DType t) {
  switch (t) {
    case DType::f32: return lintra::cuda::Elem::f32;
    case DType::f64: return lintra::cuda::Elem::f64;
    case DType::i64: return lintra::cuda::Elem::i64;
    case DType::u8: return lintra::cuda::Elem::u8;
  }
  LINTRA_FAIL("cuda: unknown dtype");
}

lintra::cuda::Shape shape_of(const Tensor& out) {
  LINTRA_CHECK(out.dim() <= lintra::cuda::kMaxDims, "cuda kernels take at most {} dimensions, got {}",
               lintra::cuda::kMaxDims, out.describe());
  lintra::cuda::Shape s;
  s.ndim = int(out.dim());
  s.numel = out.numel();
  for (int64_t d = 0; d < out.dim(); ++d) s.sizes[d] = out.size(d);
  return s;
}

// t's strides over `shape` (t right-aligned to it, 0 where t has size 1 or lacks the dim); an
// undefined t is an absent operand.
template <class Described> Described described(const Tensor& t, const Shape& shape) {
  Described o{};
  if (!t.defined()) return o;
  o.data = KernelAccess::data(t);
  const int64_t nd = int64_t(shape.size()), td = t.dim();
  for (int64_t d = 0; d < td; ++d)
    if (t.size(d) != 1) o.strides[nd - td + d] = t.stride(d);
  return o;
}
lintra::cuda::Operand operand(const Tensor& t, const Shape& shape) { return described<lintra::cuda::Operand>(t, shape); }
lintra::cuda::Target target(const Tensor& t) { return described<lintra::cuda::Target>(t, t.shape()); }

int device_of(const Tensor& t) { return t.device().index(); }

void copy(const Tensor& src, Tensor& out) {
  lintra::cuda::copy(device_of(out), elem(src.dtype()), shape_of(out), operand(src, out.shape()), elem(out.dtype()),
                     target(out));
}

void fill(Tensor& out, double value) {
  lintra::cuda::fill(device_of(out), elem(out.dtype()), shape_of(out), target(out), value);
}

void unary(UnaryOp op, const Tensor& x, Tensor& out, double a, double b) {
  lintra::cuda::unary(device_of(out), op, elem(out.dtype()), shape_of(out), operand(x, out.shape()), target(out), a, b);
}

void unary_backward(UnaryOp op, const Tensor& grad, const Tensor& x, const Tensor& y, Tensor& dx, double a, double b) {
  const Shape& s = dx.shape();
  lintra::cuda::unary_backward(device_of(dx), op, elem(dx.dtype()), shape_of(dx), operand(grad, s), operand(x, s),
                               operand(y, s), target(dx), a, b);
}

void binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) {
  lintra::cuda::binary(device_of(out), op, elem(a.dtype()), shape_of(out), operand(a, out.shape()),
                       operand(b, out.shape()), target(out));
}

void where(const Tensor& cond, const Tensor& a, const Tensor& b, Tensor& out) {
  const Shape& s = out.shape();
  lintra::cuda::where(device_of(out), elem(out.dtype()), shape_of(out), operand(cond, s), operand(a, s), operand(b, s),
                      target(out));
}

// --- one pass over contiguous memory (cuda/updates.h) ----------------------------------------------

void adam_update(Tensor& p, const Tensor& g, Tensor& m, Tensor& v, double beta1, double beta2, double eps,
                 double decay, double step, bool rectified) {
  lintra::cuda::adam_update(device_of(p), elem(p.dtype()), KernelAccess::data(p), KernelAccess::data(g),
                            KernelAccess::data(m), KernelAccess::data(v), p.numel(), beta1, beta2, eps, decay, step,
                            rectified);
}

void sgd_update(Tensor& p, const Tensor& g, Tensor& buf, double lr, double momentum, double weight_decay,
                bool first) {
  lintra::cuda::sgd_update(device_of(p), elem(p.dtype()), KernelAccess::data(p), KernelAccess::data(g),
                           buf.defined() ? KernelAccess::data(buf) : nullptr, p.numel(), lr, momentum, weight_decay,
                           first);
}

void arange(Tensor& out, double start, double step) {
  LINTRA_CHECK(out.is_contiguous(), "arange: the output must be contiguous, got {}", out.describe());
  lintra::cuda::arange(device_of(out), elem(out.dtype()), KernelAccess::data(out), out.numel(), start, step);
}

void index_range(const Tensor& index_in, int64_t low, int64_t high, Tensor& result) {
  const Tensor index = index_in.contiguous();
  lintra::cuda::index_range(device_of(result), static_cast<const int64_t*>(KernelAccess::data(index)), index.numel(),
                            low, high, static_cast<int64_t*>(KernelAccess::data(result)));
}

// --- the row kernels (cuda/rows.h) ------------------------------------------------------------------

void reduce(ReduceOp op, const Tensor& x, int64_t dim, Tensor& out) {
  // x's strides over out's shape (x's with dim → 1), 0 along dim and along x's size-1 dims.
  lintra::cuda::Operand xo{};
  xo.data = KernelAccess::data(x);
  for (int64_t d = 0; d < x.dim(); ++d)
    if (d != dim && x.size(d) != 1) xo.strides[d] = x.stride(d);
  lintra::cuda::reduce(device_of(out), lintra::cuda::Reduce(uint8_t(op)), elem(x.dtype()), shape_of(out), xo,
                       x.size(dim), x.stride(dim), target(out));
}

void sum_squares(const Tensor& x, Tensor& out) {
  Tensor partials = Tensor::empty({lintra::cuda::kSumSquaresBlocks}, DType::f64, x.device());
  lintra::cuda::sum_squares(device_of(out), elem(x.dtype()), KernelAccess::data(x), x.numel(),
                            static_cast<double*>(KernelAccess::data(partials)),
                            static_cast<double*>(KernelAccess::data(out)));
}

// Rows of the last dim D: x contiguous, or contiguous rows with one row stride (core/ops.cpp), as the CPU's.
int64_t row_stride(const Tensor& x, int64_t D) {
  if (x.is_contiguous()) return D;
  for (int64_t d = x.dim() - 2; d >= 0; --d)
    if (x.size(d) > 1) return x.stride(d);
  return D;
}
int64_t last_dim(const Tensor& x) { return x.dim() == 0 ? 1 : x.size(x.dim() - 1); }
int64_t rows_of(const Tensor& x) { return last_dim(x) == 0 ? 0 : x.numel() / last_dim(x); }

void softmax_forward(const Tensor& x, bool log, Tensor& out) {
  const int64_t D = last_dim(x);
  lintra::cuda::softmax_forward(device_of(out), elem(x.dtype()), KernelAccess::data(x), row_stride(x, D), rows_of(x), D,
                                log, KernelAccess::data(out));
}

void softmax_backward(const Tensor& y, const Tensor& dy, bool log, Tensor& dx) {
  lintra::cuda::softmax_backward(device_of(dx), elem(y.dtype()), KernelAccess::data(y), KernelAccess::data(dy),
                                 rows_of(y), last_dim(y), log, KernelAccess::data(dx));
}

void layer_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps, Tensor& y, Tensor& mean,
                        Tensor& rstd) {
  lintra::cuda::layer_norm_forward(device_of(y), elem(x.dtype()), KernelAccess::data(x), KernelAccess::data(gamma),
                                   KernelAccess::data(beta), eps, rows_of(x), last_dim(x), KernelAccess::data(y),
                                   KernelAccess::data(mean), KernelAccess::data(rstd));
}

void layer_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& mean, const Tensor& rstd, const Tensor& gamma,
                         Tensor& dx, Tensor& dgamma, Tensor& dbeta) {
  const int64_t R = rows_of(x), D = last_dim(x);
  Tensor partials = Tensor::empty({std::max<int64_t>(1, 2 * lintra::cuda::layer_norm_chunks(R) * D)}, DType::f64,
                                  x.device());
  lintra::cuda::layer_norm_backward(device_of(dx), elem(x.dtype()), KernelAccess::data(dy), KernelAccess::data(x),
                                    KernelAccess::data(mean), KernelAccess::data(rstd), KernelAccess::data(gamma), R, D,
                                    KernelAccess::data(dx), KernelAccess::data(dgamma), KernelAccess::data(dbeta),
                                    static_cast<double*>(KernelAccess::data(partials)));
}

// --- random fills (cuda/random.h): the CPU's Philox blocks and formulas -----------------------------

// The fill's blocks are reserved on the host generator exactly as the CPU's fill reserves them.
void uniform(Tensor& out, Generator& gen, double low, double high) {
  LINTRA_CHECK(out.is_contiguous(), "uniform: the output must be contiguous, got {}", out.describe());
  const int64_t n = out.numel(), per_block = out.dtype() == DType::f32 ? 4 : 2;
  const uint64_t first = gen.reserve(uint64_t((n + per_block - 1) / per_block));
  lintra::cuda::uniform(device_of(out), elem(out.dtype()), KernelAccess::data(out), n, first, gen.state().stream,
                        gen.state().seed, low, high);
}

void normal(Tensor& out, Generator& gen, double mean, double std) {
  LINTRA_CHECK(out.is_contiguous(), "normal: the output must be contiguous, got {}", out.describe());
  const int64_t n = out.numel(), per_block = out.dtype() == DType::f32 ? 4 : 2;
  const uint64_t first = gen.reserve(uint64_t((n + per_block - 1) / per_block));
  lintra::cuda::normal(device_of(out), elem(out.dtype()), KernelAccess::data(out), n, first, gen.state().stream,
                       gen.state().seed, mean, std);
}

// Dropout on the fill's words (cuda/random.h); strided operands are made contiguous on the device first.
void dropout(const Tensor& x_in, const Tensor& gate_in, const Tensor& residual_in, uint64_t first, uint64_t stream,
             uint64_t seed, float keep, float scale, Tensor& out) {
  const Tensor x = x_in.contiguous();
  const Tensor gate = gate_in.defined() ? gate_in.contiguous() : Tensor();
  const Tensor residual = residual_in.defined() ? residual_in.contiguous() : Tensor();
  auto floats = [](const Tensor& t) {
    return t.defined() ? static_cast<const float*>(KernelAccess::data(t)) : nullptr;
  };
  lintra::cuda::dropout(device_of(out), floats(x), floats(gate), floats(residual),
                        static_cast<float*>(KernelAccess::data(out)), x.numel(), first, stream, seed, keep, scale);
}

// --- index kernels (cuda/index.h) -------------------------------------------------------------------

// (outer, size of dim, inner) of a shape.
void split_dims(const Shape& s, int64_t dim, int64_t& outer, int64_t& n, int64_t& inner) {
  outer = inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= s[size_t(d)];
  for (size_t d = size_t(dim) + 1; d < s.size(); ++d) inner *= s[d];
  n = s[size_t(dim)];
}

// t's own strides (same rank as the shape it is walked over), `dim`'s set to 0.
template <class Described> Described with_dim_zeroed(const Tensor& t, int64_t dim) {
  Described o{};
  o.data = KernelAccess::data(t);
  for (int64_t d = 0; d < t.dim(); ++d) o.strides[d] = d == dim ? 0 : t.stride(d);
  return o;
}

void index_select(const Tensor& x_in, int64_t dim, const Tensor& index_in, Tensor& out) {
  const Tensor x = x_in.contiguous(), index = index_in.contiguous();
  LINTRA_CHECK(out.is_contiguous(), "index_select: the output must be contiguous, got {}", out.describe());
  int64_t outer, n, inner;
  split_dims(x.shape(), dim, outer, n, inner);
  lintra::cuda::index_select(device_of(out), elem(x.dtype()), KernelAccess::data(x), outer, n, inner,
                             static_cast<const int64_t*>(KernelAccess::data(index)), index.numel(),
                             KernelAccess::data(out));
}

void gather(const Tensor& x, int64_t dim, const Tensor& index, Tensor& out) {
  lintra::cuda::gather(device_of(out), elem(x.dtype()), shape_of(out), with_dim_zeroed<lintra::cuda::Operand>(x, dim),
                       x.stride(dim), described<lintra::cuda::Operand>(index, out.shape()), target(out));
}

void scatter_add(Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) {
  lintra::cuda::Operand s{};
  s.data = KernelAccess::data(src);
  for (int64_t d = 0; d < src.dim(); ++d) s.strides[d] = src.stride(d);
  lintra::cuda::scatter_add(device_of(out), elem(out.dtype()), shape_of(index),
                            with_dim_zeroed<lintra::cuda::Target>(out, dim), out.stride(dim),
                            described<lintra::cuda::Operand>(index, index.shape()), s);
}

void index_add(Tensor& out, int64_t dim, const Tensor& index_in, const Tensor& src_in) {
  const Tensor index = index_in.contiguous(), src = src_in.contiguous();
  LINTRA_CHECK(out.is_contiguous(), "index_add: the output must be contiguous, got {}", out.describe());
  int64_t outer, n, inner;
  split_dims(out.shape(), dim, outer, n, inner);
  lintra::cuda::index_add(device_of(out), elem(out.dtype()), KernelAccess::data(out), outer, n, inner,
                          static_cast<const int64_t*>(KernelAccess::data(index)), index.numel(),
                          KernelAccess::data(src));
}

// --- the causal linear product (cuda/causal_product.h) ----------------------------------------------

// out = the (reverse) product of a, b, c (B, H, N, ·) on the device: contiguous copies in, the result
// into out (through a contiguous temporary when out is a strided view).
void causal(const Tensor& a_in, const Tensor& b_in, const Tensor& c_in, bool reverse, Tensor& out) {
  const Tensor a = a_in.contiguous(), b = b_in.contiguous(), c = c_in.contiguous();
  const int64_t BH = a.size(0) * a.size(1), N = a.size(2), Dk = a.size(3), Dc = c.size(3);
  const lintra::cuda::Elem type = elem(a.dtype());
  const int64_t C = lintra::cuda::causal_product_chunk(device_of(out), type, Dk, Dc);
  LINTRA_CHECK(C > 0, "causal_product on {}: {} heads of {} × {} do not fit one block's shared memory ({} KiB)",
               out.device().str(), dtype_name(a.dtype()), Dk, Dc,
               lintra::cuda::causal_product_shared_limit(device_of(out)) / 1024);
  Tensor o = out.is_contiguous() ? out : Tensor::empty(out.shape(), out.dtype(), out.device());
  Tensor scratch = Tensor::empty({std::max<int64_t>(1, BH * ((N + C - 1) / C) * Dk * Dc)}, a.dtype(), a.device());
  lintra::cuda::causal_product(device_of(out), type, KernelAccess::data(a), KernelAccess::data(b), KernelAccess::data(c),
                               KernelAccess::data(o), BH, N, Dk, Dc, reverse, KernelAccess::data(scratch));
  if (!out.is_contiguous()) copy(o, out);
}

void causal_product_forward(const Tensor& q, const Tensor& k, const Tensor& v, Tensor& out) {
  causal(q, k, v, false, out);
}

// Algorithm 1 as three products: gq_i = Σ_{j≤i} (g_i·v_j) k_j, gk_i = Σ_{j≥i} (v_i·g_j) q_j,
// gv_i = Σ_{j≥i} (k_i·q_j) g_j.
void causal_product_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& g, Tensor& gq,
                             Tensor& gk, Tensor& gv) {
  causal(g, v, k, false, gq);
  causal(v, g, q, true, gk);
  causal(k, q, g, true, gv);
}

// --- the normaliser of causal linear attention (cuda/causal_normalise.h) ----------------------------

// q and k with a unit last stride (a device copy otherwise) and their strides as the kernels read them.
lintra::cuda::NormaliseDims normalise_dims(const Tensor& q, const Tensor& k, int64_t M) {
  return {q.size(0) * q.size(1), q.size(1), q.size(2), q.size(3), M, q.stride(0), q.stride(1), q.stride(2),
          k.stride(0), k.stride(1), k.stride(2)};
}
Tensor unit_last_stride(const Tensor& t) { return t.stride(3) == 1 || t.size(3) <= 1 ? t : t.contiguous(); }

void causal_normalise_forward(const Tensor& q_in, const Tensor& k_in, const Tensor& num_in, double eps, Tensor& out,
                              Tensor& den) {
  const Tensor q = unit_last_stride(q_in), k = unit_last_stride(k_in), num = num_in.contiguous();
  lintra::cuda::causal_normalise_forward(device_of(out), elem(out.dtype()), normalise_dims(q, k, num.size(3)),
                                         KernelAccess::data(q), KernelAccess::data(k), KernelAccess::data(num), eps,
                                         KernelAccess::data(out), KernelAccess::data(den));
}

void causal_normalise_backward(const Tensor& q_in, const Tensor& k_in, const Tensor& out_in, const Tensor& den_in,
                               const Tensor& grad, Tensor& gnum, Tensor& gq, Tensor& gk) {
  const Tensor q = unit_last_stride(q_in), k = unit_last_stride(k_in), out = out_in.contiguous(),
               den = den_in.contiguous(), g = grad.contiguous();
  Tensor c = Tensor::empty({std::max<int64_t>(1, den.numel())}, den.dtype(), den.device());
  lintra::cuda::causal_normalise_backward(device_of(gnum), elem(gnum.dtype()), normalise_dims(q, k, out.size(3)),
                                          KernelAccess::data(q), KernelAccess::data(k), KernelAccess::data(out),
                                          KernelAccess::data(den), KernelAccess::data(g), KernelAccess::data(gnum),
                                          KernelAccess::data(gq), KernelAccess::data(gk), KernelAccess::data(c));
}

void masked_softmax_forward(const Tensor& x_in, const Tensor& allowed, Tensor& out) {
  const Tensor x = x_in.contiguous();
  const lintra::cuda::Operand a = operand(allowed, x.shape());  // 0 strides where the mask broadcasts
  lintra::cuda::masked_softmax_forward(device_of(out), elem(x.dtype()), KernelAccess::data(x),
                                       static_cast<const uint8_t*>(a.data), shape_of(x), a.strides,
                                       KernelAccess::data(out));
}

void arg_reduce(bool is_max, const Tensor& x, int64_t dim, Tensor& values, Tensor& indices) {
  lintra::cuda::Operand xo{};
  xo.data = KernelAccess::data(x);
  for (int64_t d = 0; d < x.dim(); ++d)
    if (d != dim && x.size(d) != 1) xo.strides[d] = x.stride(d);
  lintra::cuda::arg_reduce(device_of(values), is_max, elem(x.dtype()), shape_of(values), xo, x.size(dim),
                           x.stride(dim), target(values), target(indices));
}

void cumsum(const Tensor& x_in, int64_t dim, bool reverse, Tensor& out) {
  const Tensor x = x_in.contiguous();
  LINTRA_CHECK(out.is_contiguous(), "cumsum: the output must be contiguous, got {}", out.describe());
  int64_t outer, n, inner;
  split_dims(x.shape(), dim, outer, n, inner);
  lintra::cuda::cumsum(device_of(out), elem(x.dtype()), KernelAccess::data(x), outer, n, inner, reverse,
                       KernelAccess::data(out));
}

void sample_mol(const Tensor& params_in, const Tensor& uniforms_in, int64_t levels, Tensor& out, Tensor& bad) {
  const Tensor params = params_in.contiguous(), uniforms = uniforms_in.contiguous();
  lintra::cuda::sample_mol(device_of(out), elem(params.dtype()), KernelAccess::data(params),
                           static_cast<const double*>(KernelAccess::data(uniforms)), params.size(0),
                           params.size(1) / 3, levels, static_cast<int64_t*>(KernelAccess::data(out)),
                           static_cast<int64_t*>(KernelAccess::data(bad)));
}

void ctc_loss(const Tensor& log_probs, const Tensor& targets_in, const Tensor& input_lengths,
              const Tensor& target_lengths, Tensor& nll, Tensor& grad, Tensor& status) {
  const int64_t B = log_probs.size(0), T = log_probs.size(1), C = log_probs.size(2);
  const Tensor z = log_probs.to(DType::f64).contiguous(), targets = targets_in.contiguous();
  const Tensor in_len = input_lengths.contiguous(), tg_len = target_lengths.contiguous();
  const int64_t S = targets.size(1);
  Tensor nll64 = Tensor::empty({B}, DType::f64, log_probs.device());
  Tensor grad64 = Tensor::empty({B, T, C}, DType::f64, log_probs.device());
  Tensor scratch = Tensor::empty({std::max<int64_t>(1, 2 * B * T * (2 * S + 1))}, DType::f64, log_probs.device());
  lintra::cuda::ctc_loss(device_of(nll), static_cast<const double*>(KernelAccess::data(z)),
                         static_cast<const int64_t*>(KernelAccess::data(targets)),
                         static_cast<const int64_t*>(KernelAccess::data(in_len)),
                         static_cast<const int64_t*>(KernelAccess::data(tg_len)), B, T, C, S,
                         static_cast<double*>(KernelAccess::data(nll64)),
                         static_cast<double*>(KernelAccess::data(grad64)),
                         static_cast<int64_t*>(KernelAccess::data(status)),
                         static_cast<double*>(KernelAccess::data(scratch)));
  copy(nll64, nll);
  copy(grad64, grad);
}

void lsh_plan(const Tensor& buckets_in, const Tensor& lengths_in, bool causal, bool masked, double self_logit,
              Tensor& query_rows, Tensor& window_rows, Tensor& scatter, Tensor& additive, Tensor& row_ok) {
  const Tensor buckets = buckets_in.contiguous(), lengths = lengths_in.contiguous();
  lintra::cuda::LshPlanShape g{buckets.size(1), buckets.size(2), additive.size(0), additive.size(1),
                               additive.size(2), additive.size(3), additive.size(1) * additive.size(2), 1};
  // The number of keys is read to the host (an explicit copy of one value): it sizes the sort's counters.
  if (g.BH * g.N > 0) g.n_keys = int64_t(ops::amax(buckets).to(DType::f64).cpu().item()) + 2;
  Tensor scratch = Tensor::empty({std::max<int64_t>(1, g.BH * (g.Np + g.n_keys + 1))}, DType::i64, buckets.device());
  auto i64 = [](const Tensor& t) { return static_cast<int64_t*>(KernelAccess::data(t)); };
  lintra::cuda::lsh_plan(device_of(additive), elem(additive.dtype()), g, i64(buckets), i64(lengths), causal, masked,
                         self_logit, i64(query_rows), i64(window_rows), i64(scatter), KernelAccess::data(additive),
                         KernelAccess::data(row_ok), i64(scratch));
}

// Lines along dim moved last and made contiguous, sorted by CUB, the results copied back through the
// inverse permutation (as the CPU's sort).
void sort(const Tensor& x, int64_t dim, bool descending, Tensor& values, Tensor& indices) {
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (d != dim) perm.push_back(d);
  perm.push_back(dim);
  const Tensor lines = x.permute(perm).contiguous();
  const int64_t n = x.size(dim), nlines = n == 0 ? 0 : lines.numel() / n;
  const Device dev = x.device();
  Tensor sorted = Tensor::empty(lines.shape(), x.dtype(), dev), order = Tensor::empty(lines.shape(), DType::i64, dev);
  Tensor work = Tensor::empty(lines.shape(), x.dtype(), dev), index = Tensor::empty(lines.shape(), DType::i64, dev);
  Tensor offsets = Tensor::empty({nlines + 1}, DType::i64, dev);
  const lintra::cuda::Elem type = elem(x.dtype());
  const size_t bytes = lintra::cuda::sort_temp_bytes(device_of(x), type, nlines, n, descending);
  Tensor temp = Tensor::empty({std::max<int64_t>(1, int64_t(bytes))}, DType::u8, dev);
  auto i64 = [](const Tensor& t) { return static_cast<int64_t*>(KernelAccess::data(t)); };
  lintra::cuda::sort(device_of(x), type, KernelAccess::data(lines), nlines, n, descending, KernelAccess::data(sorted),
                     i64(order), KernelAccess::data(work), i64(index), i64(offsets), KernelAccess::data(temp), bytes);
  std::vector<int64_t> inv(perm.size());
  for (size_t d = 0; d < perm.size(); ++d) inv[size_t(perm[d])] = int64_t(d);
  copy(sorted.permute(inv), values);
  copy(order.permute(inv), indices);
}

}  // namespace

constinit const KernelTable table = {
    .copy = copy,
    .fill = fill,
    .unary = unary,
    .unary_backward = unary_backward,
    .binary = binary,
    .where = where,
    .reduce = reduce,
    .arg_reduce = arg_reduce,
    .softmax_forward = softmax_forward,
    .softmax_backward = softmax_backward,
    .layer_norm_forward = layer_norm_forward,
    .layer_norm_backward = layer_norm_backward,
    .matmul = matmul,
    .index_select = index_select,
    .gather = gather,
    .scatter_add = scatter_add,
    .index_add = index_add,
    .cumsum = cumsum,
    .sort = sort,
    .uniform = uniform,
    .normal = normal,
    .dropout = dropout,
    .causal_product_forward = causal_product_forward,
    .causal_product_backward = causal_product_backward,
    .causal_normalise_forward = causal_normalise_forward,
    .causal_normalise_backward = causal_normalise_backward,
    .lstm_forward = lstm_forward,
    .lstm_backward = lstm_backward,
    .arange = arange,
    .index_range = index_range,
    .masked_softmax_forward = masked_softmax_forward,
    .lsh_plan = lsh_plan,
    .sample_mol = sample_mol,
    .ctc_loss = ctc_loss,
    .adam_update = adam_update,
    .sgd_update = sgd_update,
    .sum_squares = sum_squares,
};

}  // namespace lintra::kernels::cuda_backend
