// cpu/elementwise.cpp — copy/cast, fill, unary and binary maps, where. OpenMP over rows/blocks
// (cpu/loops.h); the contiguous inner loops are written so that GCC vectorises them.
#include <cmath>
#include <cstring>

#include "core/cpu/loops.h"
#include "core/kernels.h"
#include "core/scalar_ops.h"

namespace lintra::kernels::cpu {

namespace {

template <typename T>
const T* cptr(const Tensor& t) {
  return static_cast<const T*>(t.raw_data());
}
template <typename T>
T* mptr(Tensor& t) {
  return static_cast<T*>(t.raw_data());
}

template <typename To, typename From>
void copy_typed(const Tensor& src, Tensor& out) {
  const From* s = cptr<From>(src);
  To* o = mptr<To>(out);
  for_each_row<2>(out.shape(), {bstrides(src.shape(), src.strides(), out.shape()), out.strides()},
                  [&](const std::array<int64_t, 2>& off, int64_t n, const std::array<int64_t, 2>& st) {
                    const From* a = s + off[0];
                    To* b = o + off[1];
                    if (st[0] == 1 && st[1] == 1) {
                      if constexpr (std::is_same_v<To, From>) {
                        std::memcpy(b, a, size_t(n) * sizeof(To));
                      } else {
#pragma omp simd
                        for (int64_t i = 0; i < n; ++i) b[i] = To(a[i]);
                      }
                    } else {
                      for (int64_t i = 0; i < n; ++i) b[i * st[1]] = To(a[i * st[0]]);
                    }
                  });
}

}  // namespace

void copy(const Tensor& src, Tensor& out) {
  dispatch_all(out.dtype(), "copy", [&]<typename To>() {
    dispatch_all(src.dtype(), "copy", [&]<typename From>() { copy_typed<To, From>(src, out); });
  });
}

void fill(Tensor& out, double value) {
  dispatch_all(out.dtype(), "fill", [&]<typename scalar_t>() {
    scalar_t v = scalar_t(value);
    scalar_t* o = mptr<scalar_t>(out);
    for_each_row<1>(out.shape(), {out.strides()},
                    [&](const std::array<int64_t, 1>& off, int64_t n, const std::array<int64_t, 1>& st) {
                      scalar_t* p = o + off[0];
                      if (st[0] == 1) {
#pragma omp simd
                        for (int64_t i = 0; i < n; ++i) p[i] = v;
                      } else {
                        for (int64_t i = 0; i < n; ++i) p[i * st[0]] = v;
                      }
                    });
  });
}

// --- unary -----------------------------------------------------------------------------------------

namespace {

template <typename T, typename F>
void map1(const Tensor& x, Tensor& out, F f) {
  const T* xp = cptr<T>(x);
  T* op = mptr<T>(out);
  for_each_row<2>(out.shape(), {bstrides(x.shape(), x.strides(), out.shape()), out.strides()},
                  [&](const std::array<int64_t, 2>& off, int64_t n, const std::array<int64_t, 2>& st) {
                    const T* a = xp + off[0];
                    T* o = op + off[1];
                    if (st[0] == 1 && st[1] == 1) {
#pragma omp simd
                      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]);
                    } else {
                      for (int64_t i = 0; i < n; ++i) o[i * st[1]] = f(a[i * st[0]]);
                    }
                  });
}

template <typename T>
void unary_float(UnaryOp op, const Tensor& x, Tensor& out, T a, T b) {
  using namespace lintra::scalar;
  switch (op) {
    case UnaryOp::neg: return map1<T>(x, out, [](T v) { return -v; });
    case UnaryOp::exp: return map1<T>(x, out, [](T v) { return scalar::exp<T>(v); });
    case UnaryOp::log: return map1<T>(x, out, [](T v) { return std::log(v); });
    case UnaryOp::log1p: return map1<T>(x, out, [](T v) { return std::log1p(v); });
    case UnaryOp::sqrt: return map1<T>(x, out, [](T v) { return std::sqrt(v); });
    case UnaryOp::rsqrt: return map1<T>(x, out, [](T v) { return T(1) / std::sqrt(v); });
    case UnaryOp::abs: return map1<T>(x, out, [](T v) { return std::abs(v); });
    case UnaryOp::square: return map1<T>(x, out, [](T v) { return v * v; });
    case UnaryOp::tanh: return map1<T>(x, out, [](T v) { return std::tanh(v); });
    case UnaryOp::sigmoid: return map1<T>(x, out, [](T v) { return scalar::sigmoid<T>(v); });
    case UnaryOp::relu: return map1<T>(x, out, [](T v) { return scalar::relu<T>(v); });
    case UnaryOp::gelu: return map1<T>(x, out, [](T v) { return scalar::gelu<T>(v); });
    case UnaryOp::softplus: return map1<T>(x, out, [](T v) { return scalar::softplus<T>(v); });
    case UnaryOp::sign: return map1<T>(x, out, [](T v) { return T((v > T(0)) - (v < T(0))); });
    case UnaryOp::reciprocal: return map1<T>(x, out, [](T v) { return T(1) / v; });
    case UnaryOp::elu: return map1<T>(x, out, [a](T v) { return scalar::elu<T>(v, a); });
    case UnaryOp::pow_scalar:
      if (a == T(2)) return map1<T>(x, out, [](T v) { return v * v; });
      if (a == T(0.5)) return map1<T>(x, out, [](T v) { return std::sqrt(v); });
      return map1<T>(x, out, [a](T v) { return std::pow(v, a); });
    case UnaryOp::clamp: return map1<T>(x, out, [a, b](T v) { return v < a ? a : (v > b ? b : v); });
    case UnaryOp::add_scalar: return map1<T>(x, out, [a](T v) { return v + a; });
    case UnaryOp::mul_scalar: return map1<T>(x, out, [a](T v) { return v * a; });
    case UnaryOp::rsub_scalar: return map1<T>(x, out, [a](T v) { return a - v; });
  }
}

}  // namespace

void unary(UnaryOp op, const Tensor& x, Tensor& out, double a, double b) {
  switch (out.dtype()) {
    case DType::f32: return unary_float<float>(op, x, out, float(a), float(b));
    case DType::f64: return unary_float<double>(op, x, out, a, b);
    case DType::i64:
      switch (op) {
        case UnaryOp::neg: return map1<int64_t>(x, out, [](int64_t v) { return -v; });
        case UnaryOp::abs: return map1<int64_t>(x, out, [](int64_t v) { return v < 0 ? -v : v; });
        case UnaryOp::square: return map1<int64_t>(x, out, [](int64_t v) { return v * v; });
        case UnaryOp::add_scalar: return map1<int64_t>(x, out, [a](int64_t v) { return v + int64_t(a); });
        case UnaryOp::mul_scalar: return map1<int64_t>(x, out, [a](int64_t v) { return v * int64_t(a); });
        case UnaryOp::rsub_scalar: return map1<int64_t>(x, out, [a](int64_t v) { return int64_t(a) - v; });
        case UnaryOp::clamp:
          return map1<int64_t>(x, out, [a, b](int64_t v) { return v < a ? int64_t(a) : (v > b ? int64_t(b) : v); });
        default: break;
      }
      [[fallthrough]];
    default: LINTRA_FAIL("{}: not defined for {} tensors", op_name(op), out.dtype());
  }
}

// --- binary ----------------------------------------------------------------------------------------

namespace {

template <typename T, typename R, typename F>
void map2(const Tensor& a, const Tensor& b, Tensor& out, F f) {
  const T* ap = cptr<T>(a);
  const T* bp = cptr<T>(b);
  R* op = mptr<R>(out);
  for_each_row<3>(out.shape(),
                  {bstrides(a.shape(), a.strides(), out.shape()), bstrides(b.shape(), b.strides(), out.shape()),
                   out.strides()},
                  [&](const std::array<int64_t, 3>& off, int64_t n, const std::array<int64_t, 3>& st) {
                    const T* x = ap + off[0];
                    const T* y = bp + off[1];
                    R* o = op + off[2];
                    if (st[0] == 1 && st[1] == 1 && st[2] == 1) {
#pragma omp simd
                      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
                    } else if (st[0] == 1 && st[1] == 0 && st[2] == 1) {
                      const T yv = y[0];
#pragma omp simd
                      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], yv);
                    } else if (st[0] == 0 && st[1] == 1 && st[2] == 1) {
                      const T xv = x[0];
#pragma omp simd
                      for (int64_t i = 0; i < n; ++i) o[i] = f(xv, y[i]);
                    } else {
                      for (int64_t i = 0; i < n; ++i) o[i * st[2]] = f(x[i * st[0]], y[i * st[1]]);
                    }
                  });
}

template <typename T>
void compare(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) {
  switch (op) {
    case BinaryOp::eq: return map2<T, uint8_t>(a, b, out, [](T x, T y) { return uint8_t(x == y); });
    case BinaryOp::ne: return map2<T, uint8_t>(a, b, out, [](T x, T y) { return uint8_t(x != y); });
    case BinaryOp::lt: return map2<T, uint8_t>(a, b, out, [](T x, T y) { return uint8_t(x < y); });
    case BinaryOp::le: return map2<T, uint8_t>(a, b, out, [](T x, T y) { return uint8_t(x <= y); });
    case BinaryOp::gt: return map2<T, uint8_t>(a, b, out, [](T x, T y) { return uint8_t(x > y); });
    case BinaryOp::ge: return map2<T, uint8_t>(a, b, out, [](T x, T y) { return uint8_t(x >= y); });
    default: LINTRA_FAIL("compare: not a comparison");
  }
}

template <typename T>
void arith(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) {
  switch (op) {
    case BinaryOp::add: return map2<T, T>(a, b, out, [](T x, T y) { return x + y; });
    case BinaryOp::sub: return map2<T, T>(a, b, out, [](T x, T y) { return x - y; });
    case BinaryOp::mul: return map2<T, T>(a, b, out, [](T x, T y) { return x * y; });
    case BinaryOp::div: return map2<T, T>(a, b, out, [](T x, T y) { return x / y; });
    case BinaryOp::maximum: return map2<T, T>(a, b, out, [](T x, T y) { return x > y || x != x ? x : y; });
    case BinaryOp::minimum: return map2<T, T>(a, b, out, [](T x, T y) { return x < y || x != x ? x : y; });
    default: break;
  }
  if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case BinaryOp::pow: return map2<T, T>(a, b, out, [](T x, T y) { return std::pow(x, y); });
      case BinaryOp::relu_backward: return map2<T, T>(a, b, out, [](T g, T x) { return x > T(0) ? g : T(0); });
      case BinaryOp::gelu_backward:
        return map2<T, T>(a, b, out, [](T g, T x) { return g * scalar::gelu_grad<T>(x); });
      case BinaryOp::elu_backward:
        return map2<T, T>(a, b, out, [](T g, T x) { return g * scalar::elu_grad<T>(x, T(1)); });
      case BinaryOp::sigmoid_backward: return map2<T, T>(a, b, out, [](T g, T y) { return g * y * (T(1) - y); });
      case BinaryOp::tanh_backward: return map2<T, T>(a, b, out, [](T g, T y) { return g * (T(1) - y * y); });
      default: break;
    }
  }
  LINTRA_FAIL("{}: not defined for {} tensors", op_name(op), out.dtype());
}

}  // namespace

void binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) {
  if (op >= BinaryOp::eq && op <= BinaryOp::ge) {
    dispatch_all(a.dtype(), "compare", [&]<typename scalar_t>() { compare<scalar_t>(op, a, b, out); });
    return;
  }
  switch (out.dtype()) {
    case DType::f32: return arith<float>(op, a, b, out);
    case DType::f64: return arith<double>(op, a, b, out);
    case DType::i64: return arith<int64_t>(op, a, b, out);
    case DType::u8: return arith<uint8_t>(op, a, b, out);
  }
}

void where(const Tensor& cond, const Tensor& a, const Tensor& b, Tensor& out) {
  dispatch_all(out.dtype(), "where", [&]<typename scalar_t>() {
    using T = scalar_t;
    const uint8_t* cp = cptr<uint8_t>(cond);
    const T* ap = cptr<T>(a);
    const T* bp = cptr<T>(b);
    T* op = mptr<T>(out);
    for_each_row<4>(out.shape(),
                    {bstrides(cond.shape(), cond.strides(), out.shape()),
                     bstrides(a.shape(), a.strides(), out.shape()), bstrides(b.shape(), b.strides(), out.shape()),
                     out.strides()},
                    [&](const std::array<int64_t, 4>& off, int64_t n, const std::array<int64_t, 4>& st) {
                      for (int64_t i = 0; i < n; ++i)
                        op[off[3] + i * st[3]] = cp[off[0] + i * st[0]] ? ap[off[1] + i * st[1]] : bp[off[2] + i * st[2]];
                    });
  });
}

}  // namespace lintra::kernels::cpu
