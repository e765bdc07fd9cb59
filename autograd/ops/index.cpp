// ops/index.cpp — differentiable indexing, scans and sorting. Indices are int64 tensors and carry
// no gradient.
#include "autograd/functional.h"

namespace lintra {

// d index_select(x, dim, i) = index_add(zeros(x), dim, i, g)
Var index_select(const Var& x, int64_t dim, const Tensor& index) {
  Shape xs = x.shape();
  Tensor out = ops::index_select(x.data(), dim, index);
  dim = normalize_dim(dim, x.dim(), "index_select");
  return make_result(out, "index_select", {x}, {index}, [xs, dim](const std::vector<Tensor>& s, const Tensor& g) {
    return std::vector<Tensor>{ops::index_add(Tensor::zeros(xs, g.dtype(), g.device()), dim, s[0], g)};
  });
}

// d gather(x, dim, i) = scatter_add(zeros(x), dim, i, g)
Var gather(const Var& x, int64_t dim, const Tensor& index) {
  Shape xs = x.shape();
  Tensor out = ops::gather(x.data(), dim, index);
  dim = normalize_dim(dim, x.dim(), "gather");
  return make_result(out, "gather", {x}, {index}, [xs, dim](const std::vector<Tensor>& s, const Tensor& g) {
    return std::vector<Tensor>{ops::scatter_add(Tensor::zeros(xs, g.dtype(), g.device()), dim, s[0], g)};
  });
}

// d scatter_add(base, dim, i, src) = g (to base), gather(g, dim, i) (to src)
Var scatter_add(const Var& base, int64_t dim, const Tensor& index, const Var& src) {
  Tensor out = ops::scatter_add(base.data(), dim, index, src.data());
  dim = normalize_dim(dim, base.dim(), "scatter_add");
  Shape ss = src.shape();
  return make_result(out, "scatter_add", {base, src}, {index}, [dim, ss](const std::vector<Tensor>& s, const Tensor& g) {
    Tensor gs = ops::gather(g, dim, s[0]);
    if (gs.shape() != ss) {  // index smaller than src: the rest of src was not used
      Tensor full = Tensor::zeros(ss, g.dtype(), g.device());
      Tensor dst = full;
      for (int64_t d = 0; d < int64_t(ss.size()); ++d) dst = dst.narrow(d, 0, gs.shape()[size_t(d)]);
      dst.copy_(gs);
      gs = full;
    }
    return std::vector<Tensor>{g, gs};
  });
}

// d embedding(W, i) = rows of g added into the rows i of zeros(W)
Var embedding(const Var& weight, const Tensor& index) {
  LINTRA_CHECK(weight.dim() == 2, "embedding: weight must be (V, D), got {}", shape_str(weight.shape()));
  Shape ws = weight.shape();
  Tensor out = ops::embedding(weight.data(), index);
  Tensor flat = index.reshape({-1});
  return make_result(out, "embedding", {weight}, {flat}, [ws](const std::vector<Tensor>& s, const Tensor& g) {
    Tensor gw = Tensor::zeros(ws, g.dtype(), g.device());
    return std::vector<Tensor>{ops::index_add(gw, 0, s[0], g.reshape({-1, ws[1]}))};
  });
}

// d cumsum(x) = cumsum of g in the other direction
Var cumsum(const Var& x, int64_t dim, bool reverse) {
  dim = normalize_dim(dim, x.dim(), "cumsum");
  return make_result(ops::cumsum(x.data(), dim, reverse), "cumsum", {x}, {},
                     [dim, reverse](const std::vector<Tensor>&, const Tensor& g) {
                       return std::vector<Tensor>{ops::cumsum(g, dim, !reverse)};
                     });
}

std::pair<Var, Tensor> sort(const Var& x, int64_t dim, bool descending) {
  Tensor indices = ops::argsort(x.data(), dim, descending);
  return {gather(x, dim, indices), indices};
}

}  // namespace lintra
