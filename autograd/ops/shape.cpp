// ops/shape.cpp — differentiable views and shape changes. Forward results are views where the
// tensor op is a view; gradients are reshaped, permuted back, summed (expand) or placed into zeros
// (slice, pad).
#include "autograd/functional.h"

namespace lintra {

Var reshape(const Var& x, const Shape& shape) {
  Shape xs = x.shape();
  return make_result(x.data().reshape(shape), "reshape", {x}, {}, [xs](const std::vector<Tensor>&, const Tensor& g) {
    return std::vector<Tensor>{g.reshape(xs)};
  });
}

Var flatten(const Var& x, int64_t start_dim, int64_t end_dim) {
  if (x.dim() == 0) return reshape(x, {1});
  start_dim = normalize_dim(start_dim, x.dim(), "flatten");
  end_dim = normalize_dim(end_dim, x.dim(), "flatten");
  Shape s;
  int64_t n = 1;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (d < start_dim || d > end_dim) {
      s.push_back(x.shape()[size_t(d)]);
    } else {
      n *= x.shape()[size_t(d)];
      if (d == end_dim) s.push_back(n);
    }
  }
  return reshape(x, s);
}

// d permute(x, p) = permute(g, p⁻¹)
Var permute(const Var& x, const std::vector<int64_t>& dims) {
  Tensor out = x.data().permute(dims);
  std::vector<int64_t> inv(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) inv[size_t(normalize_dim(dims[i], x.dim(), "permute"))] = int64_t(i);
  return make_result(out, "permute", {x}, {}, [inv](const std::vector<Tensor>&, const Tensor& g) {
    return std::vector<Tensor>{g.permute(inv)};
  });
}

Var transpose(const Var& x, int64_t d0, int64_t d1) {
  return make_result(x.data().transpose(d0, d1), "transpose", {x}, {}, [d0, d1](const std::vector<Tensor>&, const Tensor& g) {
    return std::vector<Tensor>{g.transpose(d0, d1)};
  });
}

Var squeeze(const Var& x, int64_t dim) { return reshape(x, x.data().squeeze(dim).shape()); }
Var unsqueeze(const Var& x, int64_t dim) { return reshape(x, x.data().unsqueeze(dim).shape()); }

// d expand(x) = g summed over the expanded dims
Var expand(const Var& x, const Shape& shape) {
  Shape xs = x.shape();
  return make_result(x.data().expand(shape), "expand", {x}, {}, [xs](const std::vector<Tensor>&, const Tensor& g) {
    return std::vector<Tensor>{ops::sum_to(g, xs)};
  });
}

// d slice(x) = zeros(x) with g written into the slice
Var slice(const Var& x, int64_t dim, int64_t start, int64_t end, int64_t step) {
  Shape xs = x.shape();
  return make_result(x.data().slice(dim, start, end, step), "slice", {x}, {},
                     [xs, dim, start, end, step](const std::vector<Tensor>&, const Tensor& g) {
                       Tensor gx = Tensor::zeros(xs, g.dtype(), g.device());
                       gx.slice(dim, start, end, step).copy_(g);
                       return std::vector<Tensor>{gx};
                     });
}

Var narrow(const Var& x, int64_t dim, int64_t start, int64_t length) {
  x.data().narrow(dim, start, length);  // validates the range
  return slice(x, dim, start, start + length);
}

Var select(const Var& x, int64_t dim, int64_t index) {
  Tensor view = x.data().select(dim, index);  // validates
  dim = normalize_dim(dim, x.dim(), "select");
  int64_t n = x.shape()[size_t(dim)];
  if (index < 0) index += n;
  return squeeze(narrow(x, dim, index, 1), dim);
}

// Identity on values; the result is contiguous.
Var contiguous(const Var& x) {
  return make_result(x.data().contiguous(), "contiguous", {x}, {},
                     [](const std::vector<Tensor>&, const Tensor& g) { return std::vector<Tensor>{g}; });
}

// d cat(xs) = g split back into the pieces
Var cat(const std::vector<Var>& xs, int64_t dim) {
  std::vector<Tensor> ts;
  std::vector<int64_t> sizes;
  for (const Var& v : xs) ts.push_back(v.data());
  Tensor out = ops::cat(ts, dim);
  dim = normalize_dim(dim, out.dim(), "cat");
  for (const Var& v : xs) sizes.push_back(v.shape()[size_t(dim)]);
  return make_result(out, "cat", xs, {}, [sizes, dim](const std::vector<Tensor>&, const Tensor& g) {
    return ops::split(g, sizes, dim);
  });
}

Var stack(const std::vector<Var>& xs, int64_t dim) {
  LINTRA_CHECK(!xs.empty(), "stack: no tensors given");
  dim = normalize_dim(dim, xs[0].dim() + 1, "stack");
  std::vector<Var> u;
  for (const Var& v : xs) {
    LINTRA_CHECK(v.shape() == xs[0].shape(), "stack: shapes {} and {} differ", shape_str(v.shape()),
                 shape_str(xs[0].shape()));
    u.push_back(unsqueeze(v, dim));
  }
  return cat(u, dim);
}

std::vector<Var> split(const Var& x, const std::vector<int64_t>& sizes, int64_t dim) {
  ops::split(x.data(), sizes, dim);  // validates
  dim = normalize_dim(dim, x.dim(), "split");
  std::vector<Var> out;
  int64_t at = 0;
  for (int64_t s : sizes) {
    out.push_back(slice(x, dim, at, at + s));
    at += s;
  }
  return out;
}

std::vector<Var> chunk(const Var& x, int64_t chunks, int64_t dim) {
  std::vector<int64_t> sizes;
  for (const Tensor& t : ops::chunk(x.data(), chunks, dim)) sizes.push_back(t.shape()[size_t(normalize_dim(dim, x.dim(), "chunk"))]);
  return split(x, sizes, dim);
}

// d pad(x) = the interior slice of g
Var pad(const Var& x, const std::vector<int64_t>& pads, double value) {
  Shape xs = x.shape();
  return make_result(ops::pad(x.data(), pads, value), "pad", {x}, {}, [xs, pads](const std::vector<Tensor>&, const Tensor& g) {
    Tensor v = g;
    for (size_t k = 0; k < pads.size() / 2; ++k) {
      int64_t d = int64_t(xs.size()) - 1 - int64_t(k);
      v = v.narrow(d, pads[2 * k], xs[size_t(d)]);
    }
    return std::vector<Tensor>{v.contiguous()};
  });
}

// d repeat(x, r) = g viewed as (r0, d0, r1, d1, …) summed over the r dims
Var repeat(const Var& x, const std::vector<int64_t>& repeats) {
  Shape xs = x.shape();
  return make_result(ops::repeat(x.data(), repeats), "repeat", {x}, {}, [xs, repeats](const std::vector<Tensor>&, const Tensor& g) {
    const size_t lead = repeats.size() - xs.size();
    Shape inter;
    Dims sum_dims;
    for (size_t i = 0; i < repeats.size(); ++i) {
      int64_t d = i < lead ? 1 : xs[i - lead];
      sum_dims.push_back(int64_t(inter.size()));
      inter.push_back(repeats[i]);
      inter.push_back(d);
    }
    return std::vector<Tensor>{ops::sum(g.reshape(inter), sum_dims).reshape(xs)};
  });
}

}  // namespace lintra
