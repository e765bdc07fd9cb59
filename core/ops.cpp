#include "core/ops.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace lintra::ops {

using kernels::BinaryOp;
using kernels::ReduceOp;
using kernels::UnaryOp;

namespace {

void check_defined(const Tensor& t, const char* op) { LINTRA_CHECK(t.defined(), "{}: undefined tensor", op); }

void check_same_dtype(const Tensor& a, const Tensor& b, const char* op) {
  LINTRA_CHECK(a.dtype() == b.dtype(), "{}: dtype mismatch: {} {} and {} {}", op, a.dtype(), shape_str(a.shape()),
               b.dtype(), shape_str(b.shape()));
}

// Sorted, unique, normalised dims; empty means all.
Dims normalize_dims(const Dims& dims, const Shape& shape, const char* op) {
  const int64_t ndim = int64_t(shape.size());
  Dims out;
  if (dims.empty()) {
    for (int64_t d = 0; d < ndim; ++d) out.push_back(d);
    return out;
  }
  for (int64_t d : dims) out.push_back(normalize_dim(d, shape, op));
  std::sort(out.begin(), out.end());
  LINTRA_CHECK(std::adjacent_find(out.begin(), out.end()) == out.end(), "{}: repeated dim in [{}]", op,
               fmt::join(dims, ", "));
  return out;
}

Shape reduced_shape(const Shape& s, const Dims& dims, bool keepdim) {
  Shape out;
  for (int64_t d = 0; d < int64_t(s.size()); ++d) {
    bool r = std::find(dims.begin(), dims.end(), d) != dims.end();
    if (!r) out.push_back(s[size_t(d)]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

// A tensor unary_backward reads: defined, with the gradient's shape and dtype.
void check_saved(const Tensor& t, const Tensor& grad, const char* op, const char* what) {
  LINTRA_CHECK(t.defined() && t.shape() == grad.shape(),
               "unary_backward: {} needs the saved {} with the gradient's shape {}, got {}", op, what,
               shape_str(grad.shape()), t.defined() ? shape_str(t.shape()) : "undefined");
  check_same_dtype(t, grad, "unary_backward");
}

void check_index(const Tensor& index, int64_t size, const char* op, const Shape& xshape, int64_t dim) {
  LINTRA_CHECK(index.dtype() == DType::i64, "{}: index must be int64, got {}", op, index.dtype());
  const IndexRange r = index_range(index, 0, size);
  LINTRA_CHECK(r.outside == 0, "{}: index {} is out of range for dim {} of size {} (input shape {})", op, r.value, dim,
               size, shape_str(xshape));
}

}  // namespace

// --- elementwise ---------------------------------------------------------------------------------

Tensor unary(UnaryOp op, const Tensor& x, double a, double b) {
  check_defined(x, name(op));
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  kernels::on(out).unary(op, x, out, a, b);
  return out;
}

Tensor unary_backward(UnaryOp op, const Tensor& grad, const Tensor& x, const Tensor& y, double a, double b) {
  LINTRA_CHECK(kernels::has_backward(op), "unary_backward: {} has no backward", name(op));
  check_defined(grad, "unary_backward");
  const op::Saves saves = kernels::backward_saves(op);
  if (op::saves_x(saves)) check_saved(x, grad, name(op), "x");
  if (op::saves_y(saves)) check_saved(y, grad, name(op), "y");
  Tensor dx = Tensor::empty(grad.shape(), grad.dtype(), grad.device());
  kernels::on(dx).unary_backward(op, grad, x, y, dx, a, b);
  return dx;
}

Tensor clamp(const Tensor& x, double low, double high) {
  LINTRA_CHECK(low <= high, "clamp: low {} > high {}", low, high);
  return unary<op::Clamp>(x, low, high);
}

Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  const char* what = name(op);
  check_defined(a, what);
  check_defined(b, what);
  check_same_dtype(a, b, what);
  Shape shape = broadcast_shapes(a.shape(), b.shape(), what);
  Tensor out = Tensor::empty(shape, kernels::is_comparison(op) ? kBool : a.dtype(), a.device());
  kernels::on(out).binary(op, a, b, out);
  return out;
}

void add_(Tensor& a, const Tensor& b) {
  check_defined(a, "add_");
  check_defined(b, "add_");
  check_same_dtype(a, b, "add_");
  LINTRA_CHECK(broadcast_shapes(a.shape(), b.shape(), "add_") == a.shape(), "add_: {} does not broadcast to {}",
               shape_str(b.shape()), shape_str(a.shape()));
  kernels::on(a).binary(kernels::binary_op<op::Add>, a, b, a);  // element-wise: each out reads only its own a
  a.bump_version();
}

Tensor binary(BinaryOp op, const Tensor& a, double s) {
  check_defined(a, name(op));
  return binary(op, a, Tensor::scalar(s, a.dtype(), a.device()));
}

Tensor logical_not(const Tensor& mask) {
  LINTRA_CHECK(mask.dtype() == kBool, "logical_not: expected a uint8 mask, got {}", mask.dtype());
  return eq(mask, 0.0);
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  LINTRA_CHECK(cond.dtype() == kBool, "where: condition must be uint8 (bool), got {}", cond.dtype());
  check_same_dtype(a, b, "where");
  Shape shape = broadcast_shapes(broadcast_shapes(cond.shape(), a.shape(), "where"), b.shape(), "where");
  Tensor out = Tensor::empty(shape, a.dtype(), a.device());
  kernels::on(out).where(cond, a, b, out);
  return out;
}

Tensor masked_fill(const Tensor& x, const Tensor& mask, double value) {
  return where(mask, Tensor::scalar(value, x.dtype(), x.device()), x);
}

// --- reductions ----------------------------------------------------------------------------------

namespace {

Tensor reduce_dims(ReduceOp op, const Tensor& x, const Dims& dims_in, bool keepdim, const char* name) {
  check_defined(x, name);
  Dims dims = normalize_dims(dims_in, x.shape(), name);
  if (op != ReduceOp::sum) {
    for (int64_t d : dims)
      LINTRA_CHECK(x.shape()[size_t(d)] > 0, "{}: cannot reduce over dim {} of size 0 (shape {})", name, d,
                   shape_str(x.shape()));
  }
  Tensor cur = x;
  // Reduce one dim at a time, innermost first (keepdim throughout, squeeze at the end).
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
    Shape s = cur.shape();
    s[size_t(*it)] = 1;
    Tensor out = Tensor::empty(s, x.dtype(), x.device());
    kernels::on(out).reduce(op, cur, *it, out);
    cur = out;
  }
  if (dims.empty()) cur = x.clone();
  if (!keepdim) cur = cur.reshape(reduced_shape(x.shape(), dims, false));
  return cur;
}

}  // namespace

Tensor sum(const Tensor& x, const Dims& dims, bool keepdim) {
  if (x.dtype() == DType::u8) return sum(x.to(DType::i64), dims, keepdim);
  return reduce_dims(ReduceOp::sum, x, dims, keepdim, "sum");
}

Tensor mean(const Tensor& x, const Dims& dims, bool keepdim) {
  LINTRA_CHECK(is_floating(x.dtype()), "mean: expected a floating tensor, got {}", x.dtype());
  Dims nd = normalize_dims(dims, x.shape(), "mean");
  int64_t count = 1;
  for (int64_t d : nd) count *= x.shape()[size_t(d)];
  return div(sum(x, dims, keepdim), double(count));
}

Tensor amax(const Tensor& x, const Dims& dims, bool keepdim) { return reduce_dims(ReduceOp::max, x, dims, keepdim, "amax"); }
Tensor amin(const Tensor& x, const Dims& dims, bool keepdim) { return reduce_dims(ReduceOp::min, x, dims, keepdim, "amin"); }

namespace {
std::pair<Tensor, Tensor> arg_reduce(bool is_max, const Tensor& x, int64_t dim, bool keepdim, const char* name) {
  check_defined(x, name);
  dim = normalize_dim(dim, x.shape(), name);
  LINTRA_CHECK(x.shape()[size_t(dim)] > 0, "{}: dim {} has size 0 (shape {})", name, dim, shape_str(x.shape()));
  Shape s = x.shape();
  s[size_t(dim)] = 1;
  Tensor values = Tensor::empty(s, x.dtype(), x.device());
  Tensor indices = Tensor::empty(s, DType::i64, x.device());
  kernels::on(x).arg_reduce(is_max, x, dim, values, indices);
  if (!keepdim) {
    values = values.squeeze(dim);
    indices = indices.squeeze(dim);
  }
  return {values, indices};
}
}  // namespace

std::pair<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim) { return arg_reduce(true, x, dim, keepdim, "max"); }
std::pair<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim) { return arg_reduce(false, x, dim, keepdim, "min"); }
Tensor argmax(const Tensor& x, int64_t dim, bool keepdim) { return max(x, dim, keepdim).second; }
Tensor argmin(const Tensor& x, int64_t dim, bool keepdim) { return min(x, dim, keepdim).second; }

Tensor logsumexp(const Tensor& x, const Dims& dims, bool keepdim) {
  Tensor m = amax(x, dims, true);
  // Rows that are all −inf: use 0 as the shift so that exp(−inf − 0) = 0 and the result is −inf.
  Tensor finite_m = where(eq(abs(m), std::numeric_limits<double>::infinity()),
                          Tensor::scalar(0, x.dtype(), x.device()), m);
  Tensor s = sum(exp(sub(x, finite_m)), dims, true);
  Tensor out = add(log(s), finite_m);
  if (!keepdim) out = out.reshape(reduced_shape(x.shape(), normalize_dims(dims, x.shape(), "logsumexp"), false));
  return out;
}

Tensor sum_to(const Tensor& x, const Shape& shape) {
  if (x.shape() == shape) return x;
  LINTRA_CHECK(int64_t(shape.size()) <= x.dim(), "sum_to: cannot sum {} to {}", shape_str(x.shape()), shape_str(shape));
  const int64_t lead = x.dim() - int64_t(shape.size());
  Dims dims;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (d < lead) {
      dims.push_back(d);
    } else if (shape[size_t(d - lead)] == 1 && x.shape()[size_t(d)] != 1) {
      dims.push_back(d);
    } else {
      LINTRA_CHECK(shape[size_t(d - lead)] == x.shape()[size_t(d)], "sum_to: cannot sum {} to {}",
                   shape_str(x.shape()), shape_str(shape));
    }
  }
  if (dims.empty()) return x.reshape(shape);
  return sum(x, dims, true).reshape(shape);
}

// --- nn kernels ----------------------------------------------------------------------------------

namespace {
// Moves `dim` last (a view) when it is not; the caller moves the result back.
Tensor last_dim_contiguous(const Tensor& x, int64_t dim) {
  if (dim == x.dim() - 1) return x.contiguous();
  return x.transpose(dim, -1).contiguous();
}
}  // namespace

Tensor softmax(const Tensor& x, int64_t dim) {
  check_defined(x, "softmax");
  if (x.dim() == 0) return Tensor::ones({}, x.dtype(), x.device());
  dim = normalize_dim(dim, x.shape(), "softmax");
  Tensor xc = last_dim_contiguous(x, dim);
  Tensor out = Tensor::empty(xc.shape(), x.dtype(), x.device());
  kernels::on(out).softmax_forward(xc, false, out);
  return dim == x.dim() - 1 ? out : out.transpose(dim, -1);
}

Tensor log_softmax(const Tensor& x, int64_t dim) {
  check_defined(x, "log_softmax");
  if (x.dim() == 0) return Tensor::zeros({}, x.dtype(), x.device());
  dim = normalize_dim(dim, x.shape(), "log_softmax");
  Tensor xc = last_dim_contiguous(x, dim);
  Tensor out = Tensor::empty(xc.shape(), x.dtype(), x.device());
  kernels::on(out).softmax_forward(xc, true, out);
  return dim == x.dim() - 1 ? out : out.transpose(dim, -1);
}

Tensor softmax_backward(const Tensor& y, const Tensor& dy, int64_t dim, bool log) {
  if (y.dim() == 0) return Tensor::zeros({}, y.dtype(), y.device());
  dim = normalize_dim(dim, y.shape(), "softmax_backward");
  Tensor yc = last_dim_contiguous(y, dim), gc = last_dim_contiguous(dy, dim);
  Tensor dx = Tensor::empty(yc.shape(), y.dtype(), y.device());
  kernels::on(dx).softmax_backward(yc, gc, log, dx);
  return dim == y.dim() - 1 ? dx : dx.transpose(dim, -1);
}

LayerNormResult layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps) {
  LINTRA_CHECK(x.dim() >= 1, "layer_norm: input must have at least 1 dim, got {}", shape_str(x.shape()));
  const int64_t D = x.shape().back();
  LINTRA_CHECK(gamma.shape() == Shape{D} && beta.shape() == Shape{D},
               "layer_norm: weight {} and bias {} must have shape [{}] (the last dim of input {})",
               shape_str(gamma.shape()), shape_str(beta.shape()), D, shape_str(x.shape()));
  check_same_dtype(x, gamma, "layer_norm");
  check_same_dtype(x, beta, "layer_norm");
  Tensor xc = x.contiguous();
  Shape rows(x.shape().begin(), x.shape().end() - 1);
  const Device dev = x.device();
  LayerNormResult r{Tensor::empty(x.shape(), x.dtype(), dev), Tensor::empty(rows, x.dtype(), dev),
                    Tensor::empty(rows, x.dtype(), dev)};
  kernels::on(r.y).layer_norm_forward(xc, gamma.contiguous(), beta.contiguous(), eps, r.y, r.mean, r.rstd);
  return r;
}

LayerNormGrads layer_norm_backward(const Tensor& dy, const Tensor& x, const LayerNormResult& fwd, const Tensor& gamma) {
  const int64_t D = x.shape().back();
  const Device dev = x.device();
  LayerNormGrads g{Tensor::empty(x.shape(), x.dtype(), dev), Tensor::empty({D}, x.dtype(), dev),
                   Tensor::empty({D}, x.dtype(), dev)};
  kernels::on(g.dx).layer_norm_backward(dy.contiguous(), x.contiguous(), fwd.mean, fwd.rstd, gamma.contiguous(), g.dx,
                                        g.dgamma, g.dbeta);
  return g;
}

// --- linear algebra ------------------------------------------------------------------------------

namespace {

// The shape of a·b for a (…, M, K), b (…, K, N) (both at least 2-d), checked.
Shape matmul_shape(const Tensor& a, const Tensor& b, const Tensor& a_in, const Tensor& b_in) {
  const int64_t M = a.shape()[size_t(a.dim() - 2)], K = a.shape()[size_t(a.dim() - 1)];
  const int64_t K2 = b.shape()[size_t(b.dim() - 2)], N = b.shape()[size_t(b.dim() - 1)];
  LINTRA_CHECK(K == K2, "matmul: shapes {} and {} cannot be multiplied ({} columns vs {} rows)",
               shape_str(a_in.shape()), shape_str(b_in.shape()), K, K2);
  Shape ab(a.shape().begin(), a.shape().end() - 2), bb(b.shape().begin(), b.shape().end() - 2);
  for (size_t i = 1; i <= std::min(ab.size(), bb.size()); ++i) {
    const int64_t x = ab[ab.size() - i], y = bb[bb.size() - i];
    LINTRA_CHECK(x == y || x == 1 || y == 1, "matmul: the batch dims of {} and {} do not broadcast",
                 shape_str(a_in.shape()), shape_str(b_in.shape()));
  }
  Shape out_shape = broadcast_shapes(ab, bb, "matmul");
  out_shape.push_back(M);
  out_shape.push_back(N);
  return out_shape;
}

void check_matmul_operands(const Tensor& a, const Tensor& b, const char* op) {
  check_defined(a, op);
  check_defined(b, op);
  check_same_dtype(a, b, op);
  LINTRA_CHECK(is_floating(a.dtype()), "{}: expected floating tensors, got {}", op, a.dtype());
}

}  // namespace

Tensor matmul(const Tensor& a_in, const Tensor& b_in) {
  check_matmul_operands(a_in, b_in, "matmul");
  LINTRA_CHECK(a_in.dim() >= 1 && b_in.dim() >= 1, "matmul: operands must have at least 1 dim, got {} and {}",
               shape_str(a_in.shape()), shape_str(b_in.shape()));
  Tensor a = a_in.dim() == 1 ? a_in.unsqueeze(0) : a_in;
  Tensor b = b_in.dim() == 1 ? b_in.unsqueeze(1) : b_in;
  Tensor out = Tensor::empty(matmul_shape(a, b, a_in, b_in), a.dtype(), a.device());
  kernels::on(out).matmul(a, b, out, /*accumulate=*/false);
  if (a_in.dim() == 1) out = out.squeeze(-2);
  if (b_in.dim() == 1) out = out.squeeze(-1);
  return out;
}

Tensor addmm(const Tensor& c, const Tensor& a, const Tensor& b) {
  check_matmul_operands(a, b, "addmm");
  check_defined(c, "addmm");
  check_same_dtype(c, a, "addmm");
  LINTRA_CHECK(a.dim() >= 2 && b.dim() >= 2, "addmm: operands must have at least 2 dims, got {} and {}",
               shape_str(a.shape()), shape_str(b.shape()));
  const Shape shape = matmul_shape(a, b, a, b);
  LINTRA_CHECK(broadcast_shapes(c.shape(), shape, "addmm") == shape,
               "addmm: the added tensor {} does not broadcast to the product's shape {}", shape_str(c.shape()),
               shape_str(shape));
  Tensor out = Tensor::empty(shape, a.dtype(), a.device());
  kernels::on(out).copy(c, out);
  kernels::on(out).matmul(a, b, out, /*accumulate=*/true);
  return out;
}

// --- shape ---------------------------------------------------------------------------------------

Tensor cat(const std::vector<Tensor>& xs, int64_t dim) {
  LINTRA_CHECK(!xs.empty(), "cat: no tensors given");
  const Tensor& first = xs[0];
  dim = normalize_dim(dim, first.shape(), "cat");
  Shape shape = first.shape();
  int64_t total = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const Tensor& x = xs[i];
    check_same_dtype(first, x, "cat");
    LINTRA_CHECK(x.dim() == first.dim(), "cat: tensor {} has shape {}, tensor 0 has {}", i, shape_str(x.shape()),
                 shape_str(first.shape()));
    for (int64_t d = 0; d < x.dim(); ++d)
      LINTRA_CHECK(d == dim || x.shape()[size_t(d)] == shape[size_t(d)],
                   "cat: tensor {} has shape {}, tensor 0 has {} (they may differ only in dim {})", i,
                   shape_str(x.shape()), shape_str(first.shape()), dim);
    total += x.shape()[size_t(dim)];
  }
  shape[size_t(dim)] = total;
  Tensor out = Tensor::empty(shape, first.dtype(), first.device());
  int64_t at = 0;
  for (const Tensor& x : xs) {
    int64_t n = x.shape()[size_t(dim)];
    Tensor dst = out.narrow(dim, at, n);
    kernels::on(dst).copy(x, dst);
    at += n;
  }
  return out;
}

Tensor stack(const std::vector<Tensor>& xs, int64_t dim) {
  LINTRA_CHECK(!xs.empty(), "stack: no tensors given");
  dim = normalize_dim(dim, xs[0].dim() + 1, "stack");
  std::vector<Tensor> u;
  for (size_t i = 0; i < xs.size(); ++i) {
    LINTRA_CHECK(xs[i].shape() == xs[0].shape(), "stack: tensor {} has shape {}, tensor 0 has {}", i,
                 shape_str(xs[i].shape()), shape_str(xs[0].shape()));
    u.push_back(xs[i].unsqueeze(dim));
  }
  return cat(u, dim);
}

std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t dim) {
  dim = normalize_dim(dim, x.shape(), "split");
  int64_t total = 0;
  for (int64_t s : sizes) {
    LINTRA_CHECK(s >= 0, "split: negative size {}", s);
    total += s;
  }
  LINTRA_CHECK(total == x.shape()[size_t(dim)], "split: sizes [{}] add up to {}, but dim {} of {} has size {}",
               fmt::join(sizes, ", "), total, dim, shape_str(x.shape()), x.shape()[size_t(dim)]);
  std::vector<Tensor> out;
  int64_t at = 0;
  for (int64_t s : sizes) {
    out.push_back(x.narrow(dim, at, s));
    at += s;
  }
  return out;
}

std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim) {
  LINTRA_CHECK(chunks > 0, "chunk: chunks must be positive, got {}", chunks);
  dim = normalize_dim(dim, x.shape(), "chunk");
  int64_t n = x.shape()[size_t(dim)];
  int64_t each = (n + chunks - 1) / chunks;
  std::vector<int64_t> sizes;
  for (int64_t at = 0; at < n; at += each) sizes.push_back(std::min(each, n - at));
  if (sizes.empty()) sizes.push_back(0);
  return split(x, sizes, dim);
}

Tensor pad(const Tensor& x, const std::vector<int64_t>& pads, double value) {
  LINTRA_CHECK(pads.size() % 2 == 0 && int64_t(pads.size()) <= 2 * x.dim(),
               "pad: {} padding values for a tensor with {} dims (need pairs, at most {})", pads.size(), x.dim(),
               2 * x.dim());
  Shape shape = x.shape();
  for (size_t k = 0; k < pads.size() / 2; ++k) {
    size_t d = size_t(x.dim()) - 1 - k;
    LINTRA_CHECK(pads[2 * k] >= 0 && pads[2 * k + 1] >= 0, "pad: negative padding [{}]", fmt::join(pads, ", "));
    shape[d] += pads[2 * k] + pads[2 * k + 1];
  }
  Tensor out = Tensor::full(shape, value, x.dtype(), x.device());
  Tensor dst = out;
  for (size_t k = 0; k < pads.size() / 2; ++k) {
    int64_t d = x.dim() - 1 - int64_t(k);
    dst = dst.narrow(d, pads[2 * k], x.shape()[size_t(d)]);
  }
  kernels::on(dst).copy(x, dst);
  return out;
}

Tensor repeat(const Tensor& x, const std::vector<int64_t>& repeats) {
  LINTRA_CHECK(int64_t(repeats.size()) >= x.dim(), "repeat: {} repeats for a tensor with {} dims", repeats.size(),
               x.dim());
  // View x as (1, d0, 1, d1, …), expand to (r0, d0, r1, d1, …), then reshape to (r0·d0, r1·d1, …).
  const size_t lead = repeats.size() - size_t(x.dim());
  Shape xs(lead, 1);
  xs.insert(xs.end(), x.shape().begin(), x.shape().end());
  Tensor v = x.reshape(xs);
  Shape inter, expanded, final_shape;
  for (size_t i = 0; i < repeats.size(); ++i) {
    LINTRA_CHECK(repeats[i] >= 0, "repeat: negative repeat {}", repeats[i]);
    inter.push_back(1);
    inter.push_back(xs[i]);
    expanded.push_back(repeats[i]);
    expanded.push_back(xs[i]);
    final_shape.push_back(repeats[i] * xs[i]);
  }
  return v.reshape(inter).expand(expanded).contiguous().reshape(final_shape);
}

// --- indexing ------------------------------------------------------------------------------------

Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index) {
  dim = normalize_dim(dim, x.shape(), "index_select");
  LINTRA_CHECK(index.dim() == 1, "index_select: index must be 1-d, got {}", shape_str(index.shape()));
  check_index(index, x.shape()[size_t(dim)], "index_select", x.shape(), dim);
  Shape s = x.shape();
  s[size_t(dim)] = index.numel();
  Tensor out = Tensor::empty(s, x.dtype(), x.device());
  kernels::on(out).index_select(x, dim, index, out);
  return out;
}

Tensor gather(const Tensor& x, int64_t dim, const Tensor& index) {
  dim = normalize_dim(dim, x.shape(), "gather");
  LINTRA_CHECK(index.dim() == x.dim(), "gather: index {} must have as many dims as input {}", shape_str(index.shape()),
               shape_str(x.shape()));
  for (int64_t d = 0; d < x.dim(); ++d)
    LINTRA_CHECK(d == dim || index.shape()[size_t(d)] <= x.shape()[size_t(d)],
                 "gather: index {} is larger than input {} in dim {}", shape_str(index.shape()), shape_str(x.shape()), d);
  check_index(index, x.shape()[size_t(dim)], "gather", x.shape(), dim);
  Tensor out = Tensor::empty(index.shape(), x.dtype(), x.device());
  kernels::on(out).gather(x, dim, index, out);
  return out;
}

Tensor scatter_add(const Tensor& base, int64_t dim, const Tensor& index, const Tensor& src) {
  dim = normalize_dim(dim, base.shape(), "scatter_add");
  check_same_dtype(base, src, "scatter_add");
  LINTRA_CHECK(index.dim() == base.dim(), "scatter_add: index {} must have as many dims as input {}",
               shape_str(index.shape()), shape_str(base.shape()));
  for (int64_t d = 0; d < base.dim(); ++d) {
    LINTRA_CHECK(d == dim || index.shape()[size_t(d)] <= base.shape()[size_t(d)],
                 "scatter_add: index {} is larger than input {} in dim {}", shape_str(index.shape()),
                 shape_str(base.shape()), d);
    LINTRA_CHECK(index.shape()[size_t(d)] <= src.shape()[size_t(d)], "scatter_add: index {} is larger than src {}",
                 shape_str(index.shape()), shape_str(src.shape()));
  }
  check_index(index, base.shape()[size_t(dim)], "scatter_add", base.shape(), dim);
  Tensor out = base.clone();
  Tensor s = src.shape() == index.shape() ? src : src.as_strided(index.shape(), src.strides(), src.offset());
  kernels::on(out).scatter_add(out, dim, index, s);
  return out;
}

Tensor index_add(const Tensor& base, int64_t dim, const Tensor& index, const Tensor& src) {
  dim = normalize_dim(dim, base.shape(), "index_add");
  check_same_dtype(base, src, "index_add");
  LINTRA_CHECK(index.dim() == 1, "index_add: index must be 1-d, got {}", shape_str(index.shape()));
  Shape expect = base.shape();
  expect[size_t(dim)] = index.numel();
  LINTRA_CHECK(src.shape() == expect, "index_add: src {} must have shape {} (input {} with dim {} = index length)",
               shape_str(src.shape()), shape_str(expect), shape_str(base.shape()), dim);
  check_index(index, base.shape()[size_t(dim)], "index_add", base.shape(), dim);
  Tensor out = base.clone();
  kernels::on(out).index_add(out, dim, index, src);
  return out;
}

Tensor embedding(const Tensor& weight, const Tensor& index) {
  LINTRA_CHECK(weight.dim() == 2, "embedding: weight must be (V, D), got {}", shape_str(weight.shape()));
  Shape s = index.shape();
  s.push_back(weight.shape()[1]);
  return index_select(weight, 0, index.reshape({-1})).reshape(s);
}

Tensor one_hot(const Tensor& index, int64_t classes, DType dtype) {
  LINTRA_CHECK(classes > 0, "one_hot: classes must be positive, got {}", classes);
  check_index(index, classes, "one_hot", {classes}, 0);
  Shape s = index.shape();
  s.push_back(classes);
  Tensor out = Tensor::zeros(s, dtype, index.device());
  return scatter_add(out, -1, index.unsqueeze(-1), Tensor::ones(index.unsqueeze(-1).shape(), dtype, index.device()));
}

// --- scans and sorting ---------------------------------------------------------------------------

Tensor cumsum(const Tensor& x, int64_t dim, bool reverse) {
  dim = normalize_dim(dim, x.shape(), "cumsum");
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  kernels::on(out).cumsum(x, dim, reverse, out);
  return out;
}

std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t dim, bool descending) {
  dim = normalize_dim(dim, x.shape(), "sort");
  Tensor values = Tensor::empty(x.shape(), x.dtype(), x.device());
  Tensor indices = Tensor::empty(x.shape(), DType::i64, x.device());
  kernels::on(x).sort(x, dim, descending, values, indices);
  return {values, indices};
}

Tensor argsort(const Tensor& x, int64_t dim, bool descending) { return sort(x, dim, descending).second; }

// --- random --------------------------------------------------------------------------------------

Tensor bernoulli(const Shape& shape, double p, Generator& gen, DType dtype, Device device) {
  LINTRA_CHECK(p >= 0 && p <= 1, "bernoulli: probability {} is outside [0, 1]", p);
  Tensor u = Tensor::uniform(shape, gen, 0, 1, dtype == DType::f64 ? DType::f64 : DType::f32, device);
  return lt(u, p).to(dtype);
}

DropoutMask draw_dropout_mask(Generator& gen, int64_t n, double keep) {
  LINTRA_CHECK(keep > 0 && keep <= 1, "dropout: keep probability {} is outside (0, 1]", keep);
  LINTRA_CHECK(n >= 0, "dropout: {} elements", n);
  const uint64_t first = gen.reserve(uint64_t((n + 3) / 4));  // as a float32 fill of n: 4 per block
  return {n, first, gen.state().stream, gen.state().seed, float(keep), float(1.0 / keep)};
}

Tensor apply_dropout(const Tensor& x, const DropoutMask& mask, const Tensor& gate, const Tensor& residual) {
  check_defined(x, "apply_dropout");
  LINTRA_CHECK(x.dtype() == DType::f32, "apply_dropout: expected float32, got {}", x.dtype());
  LINTRA_CHECK(x.numel() == mask.n, "apply_dropout: the mask was drawn for {} elements, {} has {}", mask.n,
               shape_str(x.shape()), x.numel());
  for (const auto& [t, what] : {std::pair<const Tensor&, const char*>{gate, "gate"}, {residual, "residual"}}) {
    if (!t.defined()) continue;
    LINTRA_CHECK(t.dtype() == DType::f32 && t.shape() == x.shape(),
                 "apply_dropout: the {} must be float32 of x's shape {}, got {}", what, shape_str(x.shape()),
                 t.describe());
  }
  Tensor out = Tensor::empty(x.shape(), DType::f32, x.device());
  kernels::on(out).dropout(x, gate, residual, mask.first, mask.stream, mask.seed, mask.keep, mask.scale, out);
  return out;
}

Tensor randint(const Shape& shape, int64_t low, int64_t high, Generator& gen, Device device) {
  std::vector<int64_t> v(size_t(numel_of(shape)));
  for (int64_t& x : v) x = gen.randint(low, high);
  return Tensor::from_vector(v, shape, device);
}

Tensor randperm(int64_t n, Generator& gen, Device device) { return Tensor::from_vector(gen.randperm(n), {n}, device); }

// --- range checks ----------------------------------------------------------------------------------

IndexRange index_range(const Tensor& index, int64_t low, int64_t high) {
  LINTRA_CHECK(index.defined() && index.dtype() == DType::i64, "index_range: expected an int64 tensor, got {}",
               index.defined() ? index.describe() : "undefined");
  Tensor result = Tensor::empty({3}, DType::i64, index.device());
  kernels::on(index).index_range(index, low, high, result);
  const std::vector<int64_t> r = result.cpu().to_vector<int64_t>();
  return {r[0], r[1], r[2]};
}

// --- comparison helpers --------------------------------------------------------------------------

namespace {
// One number of a 0-d tensor on any device, copied to the host.
double host_value(const Tensor& t) { return t.cpu().item(); }
}  // namespace

double max_abs_diff(const Tensor& a, const Tensor& b) {
  LINTRA_CHECK(a.shape() == b.shape(), "max_abs_diff: shapes {} and {} differ", shape_str(a.shape()), shape_str(b.shape()));
  if (a.numel() == 0) return 0;
  const double m = host_value(amax(abs(sub(a.to(DType::f64), b.to(DType::f64)))));
  return std::isnan(m) ? std::numeric_limits<double>::infinity() : m;
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol) {
  if (a.shape() != b.shape()) return false;
  if (a.numel() == 0) return true;
  const Tensor a64 = a.to(DType::f64), b64 = b.to(DType::f64);
  const Tensor ok = le(abs(sub(a64, b64)), add(mul(abs(b64), rtol), atol));  // false for NaN
  return host_value(sum(logical_not(ok))) == 0;
}

bool all_finite(const Tensor& x) {
  if (!is_floating(x.dtype()) || x.numel() == 0) return true;
  return std::isfinite(host_value(amax(abs(x))));  // a NaN anywhere makes the maximum NaN
}

}  // namespace lintra::ops
