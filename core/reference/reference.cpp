#include "core/reference/reference.h"

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

double erf_gelu(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }

}  // namespace

Tensor unary(UnaryOp op, const Tensor& x, double a, double b) {
  Tensor out = Tensor::empty(x.shape(), DType::f64);
  for_all(x.shape(), [&](const std::vector<int64_t>& i) {
    double v = x.at(i), r = 0;
    switch (op) {
      case UnaryOp::neg: r = -v; break;
      case UnaryOp::exp: r = std::exp(v); break;
      case UnaryOp::log: r = std::log(v); break;
      case UnaryOp::log1p: r = std::log1p(v); break;
      case UnaryOp::sqrt: r = std::sqrt(v); break;
      case UnaryOp::rsqrt: r = 1 / std::sqrt(v); break;
      case UnaryOp::abs: r = std::fabs(v); break;
      case UnaryOp::square: r = v * v; break;
      case UnaryOp::tanh: r = std::tanh(v); break;
      case UnaryOp::sigmoid: r = 1 / (1 + std::exp(-v)); break;
      case UnaryOp::relu: r = v > 0 ? v : 0; break;
      case UnaryOp::gelu: r = erf_gelu(v); break;
      case UnaryOp::softplus: r = std::log(1 + std::exp(v)); break;
      case UnaryOp::sign: r = v > 0 ? 1 : (v < 0 ? -1 : 0); break;
      case UnaryOp::reciprocal: r = 1 / v; break;
      case UnaryOp::elu: r = v > 0 ? v : a * (std::exp(v) - 1); break;
      case UnaryOp::pow_scalar: r = std::pow(v, a); break;
      case UnaryOp::clamp: r = std::min(std::max(v, a), b); break;
      case UnaryOp::add_scalar: r = v + a; break;
      case UnaryOp::mul_scalar: r = v * a; break;
      case UnaryOp::rsub_scalar: r = a - v; break;
    }
    write(out, i, r);
  });
  return out;
}

Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  Shape shape = broadcast_shapes(a.shape(), b.shape(), "reference::binary");
  bool cmp = op >= BinaryOp::eq && op <= BinaryOp::ge;
  Tensor out = Tensor::empty(shape, cmp ? kBool : DType::f64);
  for_all(shape, [&](const std::vector<int64_t>& i) {
    double x = read_bcast(a, i), y = read_bcast(b, i), r = 0;
    switch (op) {
      case BinaryOp::add: r = x + y; break;
      case BinaryOp::sub: r = x - y; break;
      case BinaryOp::mul: r = x * y; break;
      case BinaryOp::div: r = x / y; break;
      case BinaryOp::pow: r = std::pow(x, y); break;
      case BinaryOp::maximum: r = std::max(x, y); break;
      case BinaryOp::minimum: r = std::min(x, y); break;
      case BinaryOp::eq: r = x == y; break;
      case BinaryOp::ne: r = x != y; break;
      case BinaryOp::lt: r = x < y; break;
      case BinaryOp::le: r = x <= y; break;
      case BinaryOp::gt: r = x > y; break;
      case BinaryOp::ge: r = x >= y; break;
      case BinaryOp::relu_backward: r = y > 0 ? x : 0; break;
      case BinaryOp::gelu_backward: {
        double cdf = 0.5 * (1 + std::erf(y / std::sqrt(2.0)));
        double pdf = std::exp(-0.5 * y * y) / std::sqrt(2 * M_PI);
        r = x * (cdf + y * pdf);
        break;
      }
      case BinaryOp::elu_backward: r = x * (y > 0 ? 1 : std::exp(y)); break;
      case BinaryOp::sigmoid_backward: r = x * y * (1 - y); break;
      case BinaryOp::tanh_backward: r = x * (1 - y * y); break;
    }
    write(out, i, r);
  });
  return out;
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
      acc = op == ReduceOp::sum ? acc + v : (op == ReduceOp::max ? std::max(acc, v) : std::min(acc, v));
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
