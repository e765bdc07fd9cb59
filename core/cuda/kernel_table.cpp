// cuda/kernel_table.cpp — the CUDA device's kernel table (core/kernels.h), host code (g++).
//
// On the GPU so far: copy (with casts and broadcasting), fill, unary, unary_backward, binary and where
// (the CPU's scalar formulas, cuda/elementwise.cu); the Adam/RAdam and SGD updates, arange and the
// index range check (cuda/updates.cu); reduce, sum_squares, softmax and layer norm forward and
// backward (cuda/rows.cu), uniform and normal fills (the CPU's Philox streams, cuda/random.cu) and
// matmul (cuBLAS, cuda/matmul.cpp). Every other entry
// is not_on_cuda<&KernelTable::name>, which throws naming the kernel: a model on cuda:N runs until its
// first kernel that has no CUDA version yet, and says which (issue 15.2 lists what is to come).
//
// The entries here turn Tensors into the launchers' plain descriptions (cuda::Shape, Operand, Target:
// each operand's strides over the output's shape, 0 where it broadcasts).
#include <algorithm>
#include <string_view>

#include "core/cuda/elementwise.h"
#include "core/cuda/random.h"
#include "core/cuda/rows.h"
#include "core/cuda/table.h"
#include "core/cuda/updates.h"
#include "core/kernel_access.h"
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

// "softmax_forward" from g++'s "… [with auto member = &lintra::kernels::KernelTable::softmax_forward; …]".
template <auto member> std::string_view kernel_name() {
  std::string_view f = __PRETTY_FUNCTION__;
  const size_t at = f.find("KernelTable::");
  if (at == std::string_view::npos) return f;
  f = f.substr(at + 13);
  return f.substr(0, f.find_first_of(";]"));
}

template <auto member, class Signature = kernel_function<member>> struct NotOnCuda;
template <auto member, class R, class... Args> struct NotOnCuda<member, R(Args...)> {
  static R run(Args...) {
    LINTRA_FAIL("kernel {} has no CUDA version yet (core/cuda/kernel_table.cpp; issue 15.2): run this on the CPU",
                kernel_name<member>());
  }
};
template <auto member> inline constexpr kernel_function<member>* not_on_cuda = &NotOnCuda<member>::run;

}  // namespace

constinit const KernelTable table = {
    .copy = copy,
    .fill = fill,
    .unary = unary,
    .unary_backward = unary_backward,
    .binary = binary,
    .where = where,
    .reduce = reduce,
    .arg_reduce = not_on_cuda<&KernelTable::arg_reduce>,
    .softmax_forward = softmax_forward,
    .softmax_backward = softmax_backward,
    .layer_norm_forward = layer_norm_forward,
    .layer_norm_backward = layer_norm_backward,
    .matmul = matmul,
    .index_select = not_on_cuda<&KernelTable::index_select>,
    .gather = not_on_cuda<&KernelTable::gather>,
    .scatter_add = not_on_cuda<&KernelTable::scatter_add>,
    .index_add = not_on_cuda<&KernelTable::index_add>,
    .cumsum = not_on_cuda<&KernelTable::cumsum>,
    .sort = not_on_cuda<&KernelTable::sort>,
    .uniform = uniform,
    .normal = normal,
    .causal_product_forward = not_on_cuda<&KernelTable::causal_product_forward>,
    .causal_product_backward = not_on_cuda<&KernelTable::causal_product_backward>,
    .lstm_forward = not_on_cuda<&KernelTable::lstm_forward>,
    .lstm_backward = not_on_cuda<&KernelTable::lstm_backward>,
    .arange = arange,
    .index_range = index_range,
    .masked_softmax_forward = not_on_cuda<&KernelTable::masked_softmax_forward>,
    .lsh_plan = not_on_cuda<&KernelTable::lsh_plan>,
    .sample_mol = not_on_cuda<&KernelTable::sample_mol>,
    .ctc_loss = not_on_cuda<&KernelTable::ctc_loss>,
    .adam_update = adam_update,
    .sgd_update = sgd_update,
    .sum_squares = sum_squares,
};

}  // namespace lintra::kernels::cuda_backend
