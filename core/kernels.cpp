// kernels.cpp — dispatch of the kernel list (kernels.h) to the device of the tensors.
#include "core/kernels.h"

namespace lintra::kernels {

namespace {
[[noreturn]] void no_cuda(const char* name) {
  LINTRA_FAIL("{}: CUDA tensors need lintra built with CUDA kernels (this build has none)", name);
}
}  // namespace

#ifdef LINTRA_HAVE_CUDA
#define LINTRA_DISPATCH(name, device, ...) \
  return (device) == Device::cuda ? cuda::name(__VA_ARGS__) : cpu::name(__VA_ARGS__)
#else
#define LINTRA_DISPATCH(name, device, ...)     \
  do {                                         \
    if ((device) == Device::cuda) no_cuda(#name); \
    return cpu::name(__VA_ARGS__);             \
  } while (0)
#endif

void copy(const Tensor& src, Tensor& out) { LINTRA_DISPATCH(copy, out.device(), src, out); }
void fill(Tensor& out, double value) { LINTRA_DISPATCH(fill, out.device(), out, value); }
void unary(UnaryOp op, const Tensor& x, Tensor& out, double a, double b) {
  LINTRA_DISPATCH(unary, out.device(), op, x, out, a, b);
}
void binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) {
  LINTRA_DISPATCH(binary, out.device(), op, a, b, out);
}
void where(const Tensor& cond, const Tensor& a, const Tensor& b, Tensor& out) {
  LINTRA_DISPATCH(where, out.device(), cond, a, b, out);
}
void reduce(ReduceOp op, const Tensor& x, int64_t dim, Tensor& out) {
  LINTRA_DISPATCH(reduce, out.device(), op, x, dim, out);
}
void arg_reduce(bool is_max, const Tensor& x, int64_t dim, Tensor& values, Tensor& indices) {
  LINTRA_DISPATCH(arg_reduce, x.device(), is_max, x, dim, values, indices);
}
void softmax_forward(const Tensor& x, bool log, Tensor& out) {
  LINTRA_DISPATCH(softmax_forward, out.device(), x, log, out);
}
void softmax_backward(const Tensor& y, const Tensor& dy, bool log, Tensor& dx) {
  LINTRA_DISPATCH(softmax_backward, dx.device(), y, dy, log, dx);
}
void layer_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps, Tensor& y, Tensor& mean,
                        Tensor& rstd) {
  LINTRA_DISPATCH(layer_norm_forward, y.device(), x, gamma, beta, eps, y, mean, rstd);
}
void layer_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& mean, const Tensor& rstd,
                         const Tensor& gamma, Tensor& dx, Tensor& dgamma, Tensor& dbeta) {
  LINTRA_DISPATCH(layer_norm_backward, dx.device(), dy, x, mean, rstd, gamma, dx, dgamma, dbeta);
}
void matmul(const Tensor& a, const Tensor& b, Tensor& out) { LINTRA_DISPATCH(matmul, out.device(), a, b, out); }
void index_select(const Tensor& x, int64_t dim, const Tensor& index, Tensor& out) {
  LINTRA_DISPATCH(index_select, out.device(), x, dim, index, out);
}
void gather(const Tensor& x, int64_t dim, const Tensor& index, Tensor& out) {
  LINTRA_DISPATCH(gather, out.device(), x, dim, index, out);
}
void scatter_add(Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) {
  LINTRA_DISPATCH(scatter_add, out.device(), out, dim, index, src);
}
void index_add(Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) {
  LINTRA_DISPATCH(index_add, out.device(), out, dim, index, src);
}
void cumsum(const Tensor& x, int64_t dim, bool reverse, Tensor& out) {
  LINTRA_DISPATCH(cumsum, out.device(), x, dim, reverse, out);
}
void sort(const Tensor& x, int64_t dim, bool descending, Tensor& values, Tensor& indices) {
  LINTRA_DISPATCH(sort, x.device(), x, dim, descending, values, indices);
}
void uniform(Tensor& out, Generator& gen, double low, double high) {
  LINTRA_DISPATCH(uniform, out.device(), out, gen, low, high);
}
void normal(Tensor& out, Generator& gen, double mean, double std) {
  LINTRA_DISPATCH(normal, out.device(), out, gen, mean, std);
}
void causal_product_forward(const Tensor& q, const Tensor& k, const Tensor& v, Tensor& out) {
  LINTRA_DISPATCH(causal_product_forward, out.device(), q, k, v, out);
}
void causal_product_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& grad_out, Tensor& gq,
                             Tensor& gk, Tensor& gv) {
  LINTRA_DISPATCH(causal_product_backward, gq.device(), q, k, v, grad_out, gq, gk, gv);
}
void lstm_forward(const Tensor& xw, const Tensor& w_hh, const Tensor& b_hh, const Tensor& lengths, bool reverse,
                  Tensor& h, Tensor& acts, Tensor& hs, Tensor& cs) {
  LINTRA_DISPATCH(lstm_forward, h.device(), xw, w_hh, b_hh, lengths, reverse, h, acts, hs, cs);
}
void lstm_backward(const Tensor& grad_h, const Tensor& w_hh, const Tensor& lengths, bool reverse, const Tensor& acts,
                   const Tensor& hs, const Tensor& cs, Tensor& dxw, Tensor& dw_hh, Tensor& db_hh) {
  LINTRA_DISPATCH(lstm_backward, dxw.device(), grad_h, w_hh, lengths, reverse, acts, hs, cs, dxw, dw_hh, db_hh);
}

}  // namespace lintra::kernels
