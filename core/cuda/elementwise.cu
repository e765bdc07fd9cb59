// cuda/elementwise.cu — the elementwise kernels of cuda/elementwise.h: one grid-stride map kernel,
// instantiated per (op, element type) with a functor that applies the CPU's scalar formula
// (op::fast_of, op::backward_of, Op::fast of core/unary_ops.h and core/binary_ops.h).
//
// Each thread turns its flat output index i into a coordinate (one division per dimension) and each
// operand's element offset Σ c_d·stride_d; then one formula. Cost per element: O(ndim) integer
// operations and the formula, plus the loads and the store: bound by memory bandwidth for every op
// here. Launches go on the device's stream (cuda/runtime.h) and return at once.
#include <cuda_runtime.h>

#include <algorithm>

#include "core/cuda/elementwise.h"
#include "core/cuda/offsets.cuh"
#include "core/cuda/runtime.h"

namespace lintra::cuda {

namespace {

void check_launch(int device, const char* what) {
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) detail::fail(what, device, cudaGetErrorString(err), __FILE__, __LINE__);
}

template <int N, class F> __global__ void map_kernel(Shape shape, Strides<N> st, F f) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < shape.numel; i += step) {
    int64_t off[N];
    element_offsets<N>(shape, st, i, off);
    f(off);
  }
}

template <int N, class F> void launch(int device, const Shape& shape, const Strides<N>& st, const F& f,
                                      const char* what) {
  if (shape.numel == 0) return;
  set_current(device);
  cudaStream_t s = static_cast<cudaStream_t>(stream(device));
  constexpr int kThreads = 256;
  const int64_t blocks = std::min<int64_t>((shape.numel + kThreads - 1) / kThreads, int64_t(1) << 16);
  map_kernel<N, F><<<unsigned(blocks), kThreads, 0, s>>>(shape, st, f);
  check_launch(device, what);
}

// f.template operator()<T>() for the C++ type of `type`.
template <class F> void dispatch(Elem type, F&& f) {
  switch (type) {
    case Elem::f32: return f.template operator()<float>();
    case Elem::f64: return f.template operator()<double>();
    case Elem::i64: return f.template operator()<int64_t>();
    case Elem::u8: return f.template operator()<uint8_t>();
  }
}

[[noreturn]] void unsupported(int device, const char* what) {
  detail::fail(what, device, "this element type is not defined for the op (the caller should have refused it)",
               __FILE__, __LINE__);
}

// --- the functors: one formula each, applied at the offsets of their operands ---------------------

template <class Op, class T> struct UnaryF {
  const T* x;
  T* out;
  T a, b;
  __device__ void operator()(const int64_t (&off)[2]) const { out[off[1]] = op::fast_of<Op>(x[off[0]], a, b); }
};

template <class Op, class T> struct UnaryBackwardF {
  const T *g, *x, *y;
  T* dx;
  T a, b;
  __device__ void operator()(const int64_t (&off)[4]) const {
    const T xv = x ? x[off[1]] : T(0), yv = y ? y[off[2]] : T(0);
    dx[off[3]] = op::backward_of<Op>(g[off[0]], xv, yv, a, b);
  }
};

template <class Op, class T, class R> struct BinaryF {
  const T *a, *b;
  R* out;
  __device__ void operator()(const int64_t (&off)[3]) const { out[off[2]] = R(Op::fast(a[off[0]], b[off[1]])); }
};

template <class From, class To> struct CopyF {
  const From* src;
  To* out;
  __device__ void operator()(const int64_t (&off)[2]) const { out[off[1]] = To(src[off[0]]); }
};

template <class T> struct WhereF {
  const uint8_t* cond;
  const T *a, *b;
  T* out;
  __device__ void operator()(const int64_t (&off)[4]) const { out[off[3]] = cond[off[0]] ? a[off[1]] : b[off[2]]; }
};

template <class T> struct FillF {
  T* out;
  T value;
  __device__ void operator()(const int64_t (&off)[1]) const { out[off[0]] = value; }
};

template <class T> const T* in(const Operand& o) { return static_cast<const T*>(o.data); }
template <class T> T* at(const Target& t) { return static_cast<T*>(t.data); }

}  // namespace

void unary(int device, kernels::UnaryOp op, Elem type, const Shape& shape, const Operand& x, const Target& out,
           double a, double b) {
  op.visit([&]<class Op>() {
    dispatch(type, [&]<class T>() {
      if constexpr (op::unary_defined_on<Op, T>) {
        launch<2>(device, shape, strides_of<2>({x.strides, out.strides}), UnaryF<Op, T>{in<T>(x), at<T>(out), T(a), T(b)},
                  "unary kernel");
      } else {
        unsupported(device, "unary kernel");
      }
    });
  });
}

void unary_backward(int device, kernels::UnaryOp op, Elem type, const Shape& shape, const Operand& grad,
                    const Operand& x, const Operand& y, const Target& dx, double a, double b) {
  op.visit([&]<class Op>() {
    dispatch(type, [&]<class T>() {
      if constexpr (op::has_backward<Op> && std::is_floating_point_v<T>) {
        launch<4>(device, shape, strides_of<4>({grad.strides, x.strides, y.strides, dx.strides}),
                  UnaryBackwardF<Op, T>{in<T>(grad), in<T>(x), in<T>(y), at<T>(dx), T(a), T(b)},
                  "unary_backward kernel");
      } else {
        unsupported(device, "unary_backward kernel");
      }
    });
  });
}

void binary(int device, kernels::BinaryOp op, Elem type, const Shape& shape, const Operand& a, const Operand& b,
            const Target& out) {
  op.visit([&]<class Op>() {
    dispatch(type, [&]<class T>() {
      if constexpr (op::binary_defined_on<Op, T>) {
        using R = std::conditional_t<op::is_comparison<Op>, uint8_t, T>;
        launch<3>(device, shape, strides_of<3>({a.strides, b.strides, out.strides}),
                  BinaryF<Op, T, R>{in<T>(a), in<T>(b), at<R>(out)}, "binary kernel");
      } else {
        unsupported(device, "binary kernel");
      }
    });
  });
}

void copy(int device, Elem src_type, const Shape& shape, const Operand& src, Elem out_type, const Target& out) {
  dispatch(out_type, [&]<class To>() {
    dispatch(src_type, [&]<class From>() {
      launch<2>(device, shape, strides_of<2>({src.strides, out.strides}), CopyF<From, To>{in<From>(src), at<To>(out)},
                "copy kernel");
    });
  });
}

void where(int device, Elem type, const Shape& shape, const Operand& cond, const Operand& a, const Operand& b,
           const Target& out) {
  dispatch(type, [&]<class T>() {
    launch<4>(device, shape, strides_of<4>({cond.strides, a.strides, b.strides, out.strides}),
              WhereF<T>{in<uint8_t>(cond), in<T>(a), in<T>(b), at<T>(out)}, "where kernel");
  });
}

void fill(int device, Elem type, const Shape& shape, const Target& out, double value) {
  dispatch(type, [&]<class T>() {
    launch<1>(device, shape, strides_of<1>({out.strides}), FillF<T>{at<T>(out), T(value)}, "fill kernel");
  });
}

}  // namespace lintra::cuda
