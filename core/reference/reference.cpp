#include "core/reference/reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace lintra::reference {

using kernels::BinaryOp;
using kernels::ReduceOp;
using kernels::UnaryOp;

namespace {

// Advances a multi-index over `shape` (row-major); false after the last element.
bool next_index(std::vector<int64_t>& idx, const Shape& shape) {
  for (size_t d = shape.size(); d-- > 0;) {
    if (++idx[d] < shape[d]) return true;
    idx[d] = 0;
  }
  return false;
}

// Calls f(idx) for every multi-index of shape.
template <typename F> void for_all(const Shape& shape, F f) {
  if (numel_of(shape) == 0) return;
  std::vector<int64_t> idx(shape.size(), 0);
  do {
    f(idx);
  } while (next_index(idx, shape));
}

// Element of t at a multi-index of a (possibly larger, broadcast) shape.
double read_bcast(const Tensor& t, const std::vector<int64_t>& idx) {
  std::vector<int64_t> own(size_t(t.dim()));
  size_t lead = idx.size() - size_t(t.dim());
  for (size_t d = 0; d < own.size(); ++d) own[d] = t.shape()[d] == 1 ? 0 : idx[lead + d];
  return t.at(own);
}

void write(Tensor& t, const std::vector<int64_t>& idx, double v) {
  int64_t off = 0;
  for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * t.strides()[d];
  dispatch_all(t.dtype(), "reference", [&]<typename scalar_t>() { t.data<scalar_t>()[off] = scalar_t(v); });
}

}  // namespace

Tensor unary(UnaryOp op, const Tensor& x, double a, double b) {
  return op.visit([&]<class Op>() {
    Tensor out = Tensor::empty(x.shape(), DType::f64);
    for_all(x.shape(), [&](const std::vector<int64_t>& i) { write(out, i, op::reference_of<Op>(x.at(i), a, b)); });
    return out;
  });
}

Tensor unary_backward(UnaryOp op, const Tensor& g, const Tensor& x, double a, double b) {
  LINTRA_CHECK(g.shape() == x.shape(), "reference::unary_backward: grad {} and x {} differ", shape_str(g.shape()),
               shape_str(x.shape()));
  return op.visit([&]<class Op>() {
    if constexpr (!op::has_backward<Op>) {
      LINTRA_FAIL("reference::unary_backward: {} has no backward", Op::name);
      return Tensor();
    } else {
      Tensor out = Tensor::empty(x.shape(), DType::f64);
      for_all(x.shape(), [&](const std::vector<int64_t>& i) {
        write(out, i, op::reference_backward_of<Op>(g.at(i), x.at(i), a, b));
      });
      return out;
    }
  });
}

Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  Shape shape = broadcast_shapes(a.shape(), b.shape(), "reference::binary");
  return op.visit([&]<class Op>() {
    Tensor out = Tensor::empty(shape, op::is_comparison<Op> ? kBool : DType::f64);
    for_all(shape, [&](const std::vector<int64_t>& i) {
      write(out, i, Op::reference(read_bcast(a, i), read_bcast(b, i)));
    });
    return out;
  });
}

Tensor reduce(ReduceOp op, const Tensor& x, int64_t dim) {
  Shape s = x.shape();
  const int64_t R = s[size_t(dim)];
  s[size_t(dim)] = 1;
  Tensor out = Tensor::empty(s, DType::f64);
  for_all(s, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> j = i;
    double acc = op == ReduceOp::sum ? 0 : (op == ReduceOp::max ? -INFINITY : INFINITY);
    for (int64_t r = 0; r < R; ++r) {
      j[size_t(dim)] = r;
      double v = x.at(j);
      // max and min propagate NaN, as the CPU and CUDA kernels do (std::max would skip it).
      if (op == ReduceOp::sum) acc += v;
      else if (std::isnan(v) || std::isnan(acc)) acc = NAN;
      else acc = op == ReduceOp::max ? std::max(acc, v) : std::min(acc, v);
    }
    write(out, i, acc);
  });
  return out;
}

Tensor argmax(const Tensor& x, int64_t dim) {
  Shape s = x.shape();
  const int64_t R = s[size_t(dim)];
  s[size_t(dim)] = 1;
  Tensor out = Tensor::empty(s, DType::i64);
  for_all(s, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> j = i;
    int64_t best = 0;
    double bv = -INFINITY;
    for (int64_t r = 0; r < R; ++r) {
      j[size_t(dim)] = r;
      if (x.at(j) > bv) {
        bv = x.at(j);
        best = r;
      }
    }
    write(out, i, double(best));
  });
  return out;
}

Tensor softmax(const Tensor& x, bool log) {
  Tensor out = Tensor::empty(x.shape(), DType::f64);
  const int64_t D = x.shape().back();
  Shape rows(x.shape().begin(), x.shape().end() - 1);
  for_all(rows, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> j = i;
    j.push_back(0);
    double m = -INFINITY, s = 0;
    for (int64_t d = 0; d < D; ++d) {
      j.back() = d;
      m = std::max(m, x.at(j));
    }
    for (int64_t d = 0; d < D; ++d) {
      j.back() = d;
      s += std::exp(x.at(j) - m);
    }
    for (int64_t d = 0; d < D; ++d) {
      j.back() = d;
      write(out, j, log ? x.at(j) - m - std::log(s) : std::exp(x.at(j) - m) / s);
    }
  });
  return out;
}

Tensor layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps) {
  Tensor out = Tensor::empty(x.shape(), DType::f64);
  const int64_t D = x.shape().back();
  Shape rows(x.shape().begin(), x.shape().end() - 1);
  for_all(rows, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> j = i;
    j.push_back(0);
    double mu = 0, var = 0;
    for (int64_t d = 0; d < D; ++d) {
      j.back() = d;
      mu += x.at(j);
    }
    mu /= double(D);
    for (int64_t d = 0; d < D; ++d) {
      j.back() = d;
      var += (x.at(j) - mu) * (x.at(j) - mu);
    }
    var /= double(D);
    for (int64_t d = 0; d < D; ++d) {
      j.back() = d;
      write(out, j, (x.at(j) - mu) / std::sqrt(var + eps) * gamma.at({d}) + beta.at({d}));
    }
  });
  return out;
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  const int64_t M = a.shape()[size_t(a.dim() - 2)], K = a.shape().back(), N = b.shape().back();
  Shape batch = broadcast_shapes(Shape(a.shape().begin(), a.shape().end() - 2),
                                 Shape(b.shape().begin(), b.shape().end() - 2), "reference::matmul");
  Shape s = batch;
  s.push_back(M);
  s.push_back(N);
  Tensor out = Tensor::empty(s, DType::f64);
  for_all(s, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> ia(i.begin(), i.end() - 2), ib = ia;
    ia.push_back(i[i.size() - 2]);
    ia.push_back(0);
    ib.push_back(0);
    ib.push_back(i.back());
    double acc = 0;
    for (int64_t k = 0; k < K; ++k) {
      ia.back() = k;
      ib[ib.size() - 2] = k;
      acc += read_bcast(a, ia) * read_bcast(b, ib);
    }
    write(out, i, acc);
  });
  return out;
}

Tensor gather(const Tensor& x, int64_t dim, const Tensor& index) {
  Tensor out = Tensor::empty(index.shape(), DType::f64);
  for_all(index.shape(), [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> j = i;
    j[size_t(dim)] = int64_t(index.at(i));
    write(out, i, x.at(j));
  });
  return out;
}

Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index) {
  Shape s = x.shape();
  s[size_t(dim)] = index.numel();
  Tensor out = Tensor::empty(s, DType::f64);
  for_all(s, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> j = i;
    j[size_t(dim)] = int64_t(index.at({i[size_t(dim)]}));
    write(out, i, x.at(j));
  });
  return out;
}

Tensor scatter_add(const Tensor& base, int64_t dim, const Tensor& index, const Tensor& src) {
  Tensor out = base.to(DType::f64).clone();
  for_all(index.shape(), [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> j = i;
    j[size_t(dim)] = int64_t(index.at(i));
    write(out, j, out.at(j) + src.at(i));
  });
  return out;
}

Tensor cumsum(const Tensor& x, int64_t dim, bool reverse) {
  Tensor out = Tensor::empty(x.shape(), DType::f64);
  const int64_t R = x.shape()[size_t(dim)];
  for_all(x.shape(), [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> j = i;
    double acc = 0;
    int64_t r0 = i[size_t(dim)];
    for (int64_t r = reverse ? r0 : 0; reverse ? r < R : r <= r0; ++r) {
      j[size_t(dim)] = r;
      acc += x.at(j);
    }
    write(out, i, acc);
  });
  return out;
}

Tensor sort_indices(const Tensor& x, int64_t dim, bool descending) {
  Tensor out = Tensor::empty(x.shape(), DType::i64);
  const int64_t R = x.shape()[size_t(dim)];
  Shape lines = x.shape();
  lines[size_t(dim)] = 1;
  for_all(lines, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> j = i;
    std::vector<int64_t> order;
    std::vector<double> vals;
    for (int64_t r = 0; r < R; ++r) {
      j[size_t(dim)] = r;
      double v = x.at(j);
      // insertion: after every element that is not strictly after v (stable)
      size_t pos = order.size();
      while (pos > 0 && (descending ? vals[pos - 1] < v : vals[pos - 1] > v)) --pos;
      order.insert(order.begin() + long(pos), r);
      vals.insert(vals.begin() + long(pos), v);
    }
    for (int64_t r = 0; r < R; ++r) {
      j[size_t(dim)] = r;
      write(out, j, double(order[size_t(r)]));
    }
  });
  return out;
}

}  // namespace lintra::reference
