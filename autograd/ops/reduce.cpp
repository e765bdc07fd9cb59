// ops/reduce.cpp — differentiable reductions.
#include "autograd/functional.h"

namespace lintra {

namespace {
// g with the reduced dims put back as size 1 (keepdim shape), then expanded to x's shape.
Tensor expand_back(const Tensor& g, const Shape& xshape, const Dims& dims, bool keepdim) {
  Shape kshape = xshape;
  Dims nd;
  if (dims.empty()) {
    for (int64_t d = 0; d < int64_t(xshape.size()); ++d) nd.push_back(d);
  } else {
    for (int64_t d : dims) nd.push_back(normalize_dim(d, xshape, "sum"));
  }
  for (int64_t d : nd) kshape[size_t(d)] = 1;
  Tensor gk = keepdim ? g : g.reshape(kshape);
  return gk.expand(xshape);
}
}  // namespace

// d Σx = g broadcast back over the summed dims
Var sum(const Var& x, const Dims& dims, bool keepdim) {
  Shape xs = x.shape();
  return make_result(ops::sum(x.data(), dims, keepdim), "sum", {x}, {},
                     [xs, dims, keepdim](const std::vector<Tensor>&, const Tensor& g) {
                       return std::vector<Tensor>{expand_back(g, xs, dims, keepdim)};
                     });
}

Var mean(const Var& x, const Dims& dims, bool keepdim) {
  int64_t count = 1;
  if (dims.empty()) {
    count = x.numel();
  } else {
    for (int64_t d : dims) count *= x.shape()[size_t(normalize_dim(d, x.shape(), "mean"))];
  }
  return mul(sum(x, dims, keepdim), 1.0 / double(count));
}

namespace {
// d max(x, dim) = g at the selected index, 0 elsewhere
std::pair<Var, Tensor> arg_reduce(const Var& x, int64_t dim, bool keepdim, bool is_max) {
  auto [values, indices] = is_max ? ops::max(x.data(), dim, true) : ops::min(x.data(), dim, true);
  dim = normalize_dim(dim, x.dim(), "max");
  Shape xs = x.shape();
  Tensor out_values = keepdim ? values : values.squeeze(dim);
  Var v = make_result(out_values, is_max ? "max" : "min", {x}, {indices},
                      [xs, dim](const std::vector<Tensor>& s, const Tensor& g) {
                        Tensor gk = g.dim() == int64_t(xs.size()) ? g : g.unsqueeze(dim);
                        return std::vector<Tensor>{ops::scatter_add(Tensor::zeros(xs, g.dtype(), g.device()), dim, s[0], gk)};
                      });
  return {v, keepdim ? indices : indices.squeeze(dim)};
}
}  // namespace

std::pair<Var, Tensor> max(const Var& x, int64_t dim, bool keepdim) { return arg_reduce(x, dim, keepdim, true); }
std::pair<Var, Tensor> min(const Var& x, int64_t dim, bool keepdim) { return arg_reduce(x, dim, keepdim, false); }

// d logsumexp(x) = g·exp(x − out) = g·softmax(x)
Var logsumexp(const Var& x, const Dims& dims, bool keepdim) {
  Shape xs = x.shape();
  Tensor out = ops::logsumexp(x.data(), dims, keepdim);
  Shape kshape = xs;
  if (dims.empty()) {
    kshape.assign(xs.size(), 1);
  } else {
    for (int64_t d : dims) kshape[size_t(normalize_dim(d, x.shape(), "logsumexp"))] = 1;
  }
  Tensor out_k = out.reshape(kshape);
  return make_result(out, "logsumexp", {x}, {x.data(), out_k},
                     [xs, dims, keepdim](const std::vector<Tensor>& s, const Tensor& g) {
                       Tensor gk = expand_back(g, xs, dims, keepdim);
                       return std::vector<Tensor>{ops::mul(gk, ops::exp(ops::sub(s[0], s[1])))};
                     });
}

}  // namespace lintra
