// cuda/updates.cu — the kernels of cuda/updates.h (the formulas are core/cpu/optimizer.cpp's, arange.cpp's
// and index_range.cpp's; the contracts core/kernels.h's).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>

#include "core/cuda/launch.cuh"
#include "core/cuda/runtime.h"
#include "core/cuda/updates.h"

namespace lintra::cuda {

namespace {

// f.template operator()<T>() for f32 and f64.
template <class F> void floats(int device, Elem type, const char* what, F&& f) {
  if (type == Elem::f32) return f.template operator()<float>();
  if (type == Elem::f64) return f.template operator()<double>();
  detail::fail(what, device, "only float32 and float64 are defined (the caller should have refused it)", __FILE__,
               __LINE__);
}

#define LINTRA_GRID_STRIDE(i, n) \
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); i += int64_t(gridDim.x) * blockDim.x)

template <class T> __global__ void adam_kernel(T* p, const T* g, T* m, T* v, int64_t n, T b1, T b2, T eps, T decay,
                                               T step, bool rectified) {
  LINTRA_GRID_STRIDE(j, n) {
    const T gj = g[j];
    const T mj = b1 * m[j] + (T(1) - b1) * gj;
    const T vj = b2 * v[j] + (T(1) - b2) * gj * gj;
    m[j] = mj;
    v[j] = vj;
    p[j] = rectified ? p[j] * decay - step * mj / (sqrt(vj) + eps) : p[j] * decay - step * mj;
  }
}

template <class T> __global__ void sgd_kernel(T* p, const T* g, T* buf, int64_t n, T lr, T mu, T wd, bool first) {
  LINTRA_GRID_STRIDE(j, n) {
    T d = g[j] + wd * p[j];
    if (buf != nullptr) {
      buf[j] = first ? d : mu * buf[j] + d;
      d = buf[j];
    }
    p[j] -= lr * d;
  }
}

template <class T> __global__ void arange_kernel(T* out, int64_t n, double start, double step) {
  LINTRA_GRID_STRIDE(i, n) out[i] = T(start + double(i) * step);
}

// result[0] += values outside; result[1] = min(position of one outside) (starts at n: none).
__global__ void index_count_kernel(const int64_t* index, int64_t n, int64_t low, int64_t high, int64_t* result) {
  unsigned long long outside = 0;
  long long first = n;
  LINTRA_GRID_STRIDE(i, n) {
    if (index[i] < low || index[i] >= high) {
      ++outside;
      first = min(first, (long long)i);
    }
  }
  if (outside > 0) {
    atomicAdd(reinterpret_cast<unsigned long long*>(&result[0]), outside);
    atomicMin(reinterpret_cast<long long*>(&result[1]), first);
  }
}

__global__ void index_finish_kernel(const int64_t* index, int64_t n, int64_t* result) {
  if (result[1] >= n) {
    result[1] = -1;
    result[2] = 0;
  } else {
    result[2] = index[result[1]];
  }
}

__global__ void index_start_kernel(int64_t n, int64_t* result) {
  result[0] = 0;
  result[1] = n;
  result[2] = 0;
}

}  // namespace

void adam_update(int device, Elem type, void* p, const void* g, void* m, void* v, int64_t n, double beta1,
                 double beta2, double eps, double decay, double step, bool rectified) {
  if (n == 0) return;
  const cudaStream_t s = stream_of(device);
  floats(device, type, "adam_update", [&]<class T>() {
    adam_kernel<T><<<grid_for(n), kThreads, 0, s>>>(static_cast<T*>(p), static_cast<const T*>(g), static_cast<T*>(m),
                                                    static_cast<T*>(v), n, T(beta1), T(beta2), T(eps), T(decay),
                                                    T(step), rectified);
  });
  check_launch(device, "adam_update");
}

void sgd_update(int device, Elem type, void* p, const void* g, void* buf, int64_t n, double lr, double momentum,
                double weight_decay, bool first) {
  if (n == 0) return;
  const cudaStream_t s = stream_of(device);
  floats(device, type, "sgd_update", [&]<class T>() {
    sgd_kernel<T><<<grid_for(n), kThreads, 0, s>>>(static_cast<T*>(p), static_cast<const T*>(g), static_cast<T*>(buf),
                                                   n, T(lr), T(momentum), T(weight_decay), first);
  });
  check_launch(device, "sgd_update");
}

void arange(int device, Elem type, void* out, int64_t n, double start, double step) {
  if (n == 0) return;
  const cudaStream_t s = stream_of(device);
  switch (type) {
    case Elem::f32: arange_kernel<float><<<grid_for(n), kThreads, 0, s>>>(static_cast<float*>(out), n, start, step); break;
    case Elem::f64: arange_kernel<double><<<grid_for(n), kThreads, 0, s>>>(static_cast<double*>(out), n, start, step); break;
    case Elem::i64: arange_kernel<int64_t><<<grid_for(n), kThreads, 0, s>>>(static_cast<int64_t*>(out), n, start, step); break;
    case Elem::u8: arange_kernel<uint8_t><<<grid_for(n), kThreads, 0, s>>>(static_cast<uint8_t*>(out), n, start, step); break;
  }
  check_launch(device, "arange");
}

void index_range(int device, const int64_t* index, int64_t n, int64_t low, int64_t high, int64_t* result) {
  const cudaStream_t s = stream_of(device);
  index_start_kernel<<<1, 1, 0, s>>>(n, result);
  if (n > 0) index_count_kernel<<<grid_for(n), kThreads, 0, s>>>(index, n, low, high, result);
  index_finish_kernel<<<1, 1, 0, s>>>(index, n, result);
  check_launch(device, "index_range");
}

}  // namespace lintra::cuda
