// cuda/index.cu — the index kernels of cuda/index.h.
#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>

#include "core/cuda/index.h"
#include "core/cuda/offsets.cuh"
#include "core/cuda/launch.cuh"
#include "core/cuda/runtime.h"

namespace lintra::cuda {

namespace {

// f.template operator()<T>() for `type`; u8 only when `with_u8` (the adds have no u8 atomics).
template <bool with_u8, class F> void dispatch(int device, Elem type, const char* what, F&& f) {
  switch (type) {
    case Elem::f32: return f.template operator()<float>();
    case Elem::f64: return f.template operator()<double>();
    case Elem::i64: return f.template operator()<int64_t>();
    case Elem::u8:
      if constexpr (with_u8) return f.template operator()<uint8_t>();
      break;
  }
  detail::fail(what, device, "this element type has no CUDA version of the kernel", __FILE__, __LINE__);
}

template <class T> __device__ inline void atomic_add(T* at, T v) {
  if constexpr (sizeof(T) == 8 && !std::is_floating_point_v<T>) {
    atomicAdd(reinterpret_cast<unsigned long long*>(at), static_cast<unsigned long long>(v));  // two's complement
  } else {
    atomicAdd(at, v);
  }
}

#define LINTRA_GRID_STRIDE(i, n) \
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); i += int64_t(gridDim.x) * blockDim.x)

template <class T> __global__ void index_select_kernel(const T* x, int64_t n, int64_t inner, const int64_t* index,
                                                       int64_t L, int64_t total, T* out) {
  LINTRA_GRID_STRIDE(e, total) {
    const int64_t i = e % inner, j = (e / inner) % L, o = e / (inner * L);
    out[e] = x[(o * n + index[j]) * inner + i];
  }
}

template <class T> __global__ void index_add_kernel(T* out, int64_t n, int64_t inner, const int64_t* index, int64_t L,
                                                    int64_t total, const T* src) {
  LINTRA_GRID_STRIDE(e, total) {
    const int64_t i = e % inner, j = (e / inner) % L, o = e / (inner * L);
    atomic_add(out + (o * n + index[j]) * inner + i, src[e]);
  }
}

template <class T> __global__ void gather_kernel(Shape shape, Strides<3> st, const T* x, int64_t dim_stride,
                                                 const int64_t* index, T* out) {
  LINTRA_GRID_STRIDE(e, shape.numel) {
    int64_t off[3];
    element_offsets<3>(shape, st, e, off);
    out[off[2]] = x[off[0] + index[off[1]] * dim_stride];
  }
}

template <class T> __global__ void scatter_add_kernel(Shape shape, Strides<3> st, T* out, int64_t dim_stride,
                                                      const int64_t* index, const T* src) {
  LINTRA_GRID_STRIDE(e, shape.numel) {
    int64_t off[3];
    element_offsets<3>(shape, st, e, off);
    atomic_add(out + off[0] + index[off[1]] * dim_stride, src[off[2]]);
  }
}

}  // namespace

void index_select(int device, Elem type, const void* x, int64_t outer, int64_t n, int64_t inner,
                  const int64_t* index, int64_t L, void* out) {
  const int64_t total = outer * L * inner;
  if (total == 0) return;
  const cudaStream_t s = stream_of(device);
  dispatch<true>(device, type, "index_select", [&]<class T>() {
    index_select_kernel<T><<<grid_for(total), kThreads, 0, s>>>(static_cast<const T*>(x), n, inner, index, L, total,
                                                                static_cast<T*>(out));
  });
  check_launch(device, "index_select");
}

void gather(int device, Elem type, const Shape& shape, const Operand& x, int64_t dim_stride, const Operand& index,
            const Target& out) {
  if (shape.numel == 0) return;
  const cudaStream_t s = stream_of(device);
  const Strides<3> st = strides_of<3>({x.strides, index.strides, out.strides});
  dispatch<true>(device, type, "gather", [&]<class T>() {
    gather_kernel<T><<<grid_for(shape.numel), kThreads, 0, s>>>(shape, st, static_cast<const T*>(x.data), dim_stride,
                                                                static_cast<const int64_t*>(index.data),
                                                                static_cast<T*>(out.data));
  });
  check_launch(device, "gather");
}

void scatter_add(int device, Elem type, const Shape& shape, const Target& out, int64_t dim_stride,
                 const Operand& index, const Operand& src) {
  if (shape.numel == 0) return;
  const cudaStream_t s = stream_of(device);
  const Strides<3> st = strides_of<3>({out.strides, index.strides, src.strides});
  dispatch<false>(device, type, "scatter_add", [&]<class T>() {
    scatter_add_kernel<T><<<grid_for(shape.numel), kThreads, 0, s>>>(shape, st, static_cast<T*>(out.data), dim_stride,
                                                                     static_cast<const int64_t*>(index.data),
                                                                     static_cast<const T*>(src.data));
  });
  check_launch(device, "scatter_add");
}

void index_add(int device, Elem type, void* out, int64_t outer, int64_t n, int64_t inner, const int64_t* index,
               int64_t L, const void* src) {
  const int64_t total = outer * L * inner;
  if (total == 0) return;
  const cudaStream_t s = stream_of(device);
  dispatch<false>(device, type, "index_add", [&]<class T>() {
    index_add_kernel<T><<<grid_for(total), kThreads, 0, s>>>(static_cast<T*>(out), n, inner, index, L, total,
                                                             static_cast<const T*>(src));
  });
  check_launch(device, "index_add");
}

}  // namespace lintra::cuda
