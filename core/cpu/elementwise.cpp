// cpu/elementwise.cpp — copy/cast, fill, the unary and binary maps and unary_backward, where. OpenMP
// over rows/blocks (cpu/loops.h); the contiguous inner loops are written so that GCC vectorises them.
// The maps run the formulas of the op lists (core/unary_ops.h, core/binary_ops.h): op.visit picks the
// op's struct once per call, and its formula is inlined into the loop. Contiguous float32 runs of the
// ops that have a vector form (cpu/unary_simd.cpp: exp, log, tanh, σ, softplus, log σ, elu) take that
// Highway path instead, dispatched to the CPU's best SIMD target, and so do float32 rows of the
// arithmetic binary ops whose operands are contiguous along the row, the right one possibly broadcast
// (cpu/binary_simd.cpp); everything else falls back here.
#include <cmath>
#include <cstring>

#include "core/cpu/binary_simd.h"
#include "core/cpu/loops.h"
#include "core/cpu/unary_simd.h"
#include "core/kernels.h"

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

// --- maps: out = f(operands) elementwise, for any strides; the contiguous rows vectorise ---------

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

// Binary ops broadcast: rows where one operand is a scalar (stride 0) get their own vectorised loop.
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

// o = f(x, y, z) for three operands of out's shape (unary_backward of ops that read both x and y).
template <typename T, typename F>
void map3(const Tensor& x, const Tensor& y, const Tensor& z, Tensor& out, F f) {
  const T* xp = cptr<T>(x);
  const T* yp = cptr<T>(y);
  const T* zp = cptr<T>(z);
  T* op = mptr<T>(out);
  for_each_row<4>(out.shape(),
                  {bstrides(x.shape(), x.strides(), out.shape()), bstrides(y.shape(), y.strides(), out.shape()),
                   bstrides(z.shape(), z.strides(), out.shape()), out.strides()},
                  [&](const std::array<int64_t, 4>& off, int64_t n, const std::array<int64_t, 4>& st) {
                    const T* a = xp + off[0];
                    const T* b = yp + off[1];
                    const T* c = zp + off[2];
                    T* o = op + off[3];
                    if (st[0] == 1 && st[1] == 1 && st[2] == 1 && st[3] == 1) {
#pragma omp simd
                      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i], c[i]);
                    } else {
                      for (int64_t i = 0; i < n; ++i) o[i * st[3]] = f(a[i * st[0]], b[i * st[1]], c[i * st[2]]);
                    }
                  });
}

// Whether t holds exactly out's elements, densely (no broadcast, no strides): the Highway path's case.
bool dense_like(const Tensor& t, const Tensor& out) {
  return t.dtype() == DType::f32 && t.shape() == out.shape() && t.is_contiguous() && out.is_contiguous();
}

template <class Op> [[noreturn]] void not_defined(DType dtype) {
  LINTRA_FAIL("{}: not defined for {} tensors", Op::name, dtype);
}

}  // namespace

// --- unary -----------------------------------------------------------------------------------------

void unary(UnaryOp op, const Tensor& x, Tensor& out, double a, double b) {
  if (out.dtype() == DType::f32 && out.numel() > 0 && dense_like(x, out) &&
      unary_simd_f32(op, cptr<float>(x), mptr<float>(out), out.numel(), float(a), float(b)))
    return;
  op.visit([&]<class Op>() {
    dispatch_all(out.dtype(), Op::name, [&]<typename T>() {
      if constexpr (op::unary_defined_on<Op, T>) {
        op::with_fast_formula<Op>(T(a), T(b), [&](auto f) { map1<T>(x, out, f); });
      } else {
        not_defined<Op>(out.dtype());
      }
    });
  });
}

namespace {

// dx = Op's backward, reading only the saved tensors Op's backward uses.
template <class Op, typename T>
void unary_backward_typed(const Tensor& g, const Tensor& x, const Tensor& y, Tensor& dx, T a, T b) {
  constexpr op::Saves saves = Op::saves;
  if constexpr (saves == op::Saves::nothing) {
    map1<T>(g, dx, [a, b](T gv) { return op::backward_of<Op>(gv, T(0), T(0), a, b); });
  } else if constexpr (saves == op::Saves::x) {
    map2<T, T>(g, x, dx, [a, b](T gv, T xv) { return op::backward_of<Op>(gv, xv, T(0), a, b); });
  } else if constexpr (saves == op::Saves::y) {
    map2<T, T>(g, y, dx, [a, b](T gv, T yv) { return op::backward_of<Op>(gv, T(0), yv, a, b); });
  } else {
    map3<T>(g, x, y, dx, [a, b](T gv, T xv, T yv) { return op::backward_of<Op>(gv, xv, yv, a, b); });
  }
}

}  // namespace

void unary_backward(UnaryOp op, const Tensor& grad, const Tensor& x, const Tensor& y, Tensor& dx, double a,
                    double b) {
  op.visit([&]<class Op>() {
    if constexpr (!op::has_backward<Op>) {
      LINTRA_FAIL("unary_backward: {} has no backward", Op::name);
    } else {
      constexpr op::Saves saves = Op::saves;
      if (dx.dtype() == DType::f32 && dx.numel() > 0 && dense_like(grad, dx) &&
          (!op::saves_x(saves) || dense_like(x, dx)) && (!op::saves_y(saves) || dense_like(y, dx)) &&
          unary_backward_simd_f32(op, cptr<float>(grad), op::saves_x(saves) ? cptr<float>(x) : nullptr,
                                  op::saves_y(saves) ? cptr<float>(y) : nullptr, mptr<float>(dx), dx.numel(),
                                  float(a), float(b)))
        return;
      switch (dx.dtype()) {
        case DType::f32: return unary_backward_typed<Op, float>(grad, x, y, dx, float(a), float(b));
        case DType::f64: return unary_backward_typed<Op, double>(grad, x, y, dx, a, b);
        default: not_defined<Op>(dx.dtype());
      }
    }
  });
}

// --- binary ----------------------------------------------------------------------------------------

namespace {

// The float32 rows of an arithmetic op: the Highway row where out runs contiguously and each operand
// either does or is one value along the row, the scalar formula otherwise.
template <class Op> void binary_f32_rows(const Tensor& a, const Tensor& b, Tensor& out) {
  const float* ap = cptr<float>(a);
  const float* bp = cptr<float>(b);
  float* op_ = mptr<float>(out);
  for_each_row<3>(out.shape(),
                  {bstrides(a.shape(), a.strides(), out.shape()), bstrides(b.shape(), b.strides(), out.shape()),
                   out.strides()},
                  [&](const std::array<int64_t, 3>& off, int64_t n, const std::array<int64_t, 3>& st) {
                    if (st[2] == 1 && (st[0] == 1 || st[0] == 0) && (st[1] == 1 || st[1] == 0)) {
                      binary_row_simd_f32(binary_vector_code<Op>(), ap + off[0], st[0], bp + off[1], st[1],
                                          op_ + off[2], n);
                      return;
                    }
                    for (int64_t i = 0; i < n; ++i)
                      op_[off[2] + i * st[2]] = Op::fast(ap[off[0] + i * st[0]], bp[off[1] + i * st[1]]);
                  });
}

}  // namespace

void binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) {
  op.visit([&]<class Op>() {
    dispatch_all(a.dtype(), Op::name, [&]<typename T>() {
      if constexpr (!op::binary_defined_on<Op, T>) {
        not_defined<Op>(a.dtype());
      } else if constexpr (std::is_same_v<T, float> && binary_vector_code<Op>() >= 0) {
        binary_f32_rows<Op>(a, b, out);
      } else if constexpr (op::is_comparison<Op>) {
        map2<T, uint8_t>(a, b, out, [](T x, T y) { return uint8_t(Op::fast(x, y)); });
      } else {
        map2<T, T>(a, b, out, [](T x, T y) { return Op::fast(x, y); });
      }
    });
  });
}

// --- where -----------------------------------------------------------------------------------------

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
