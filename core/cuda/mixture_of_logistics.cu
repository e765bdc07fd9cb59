// cuda/mixture_of_logistics.cu — the sampler of cuda/mixture_of_logistics.h.
#include <cuda_runtime.h>

#include <algorithm>

#include "core/cuda/mixture_of_logistics.h"
#include "core/cuda/launch.cuh"
#include "core/cuda/runtime.h"

namespace lintra::cuda {

namespace {

constexpr int kRowsPerBlock = 128;

template <class T> __device__ bool finite_component(const T* row, int64_t K, int64_t k) {
  return isfinite(double(row[k])) && isfinite(double(row[K + k])) && isfinite(double(row[2 * K + k]));
}

// The CPU's sample_row for a row whose parameters are all finite.
template <class T> __device__ int64_t sample_row(const T* row, const double* u, int64_t K, int64_t levels) {
  int64_t best = 0;
  double best_score = -INFINITY;
  for (int64_t k = 0; k < K; ++k) {
    const double score = double(row[k]) - log(-log(u[k]));
    if (score > best_score || k == 0) {
      best_score = score;
      best = k;
    }
  }
  const double mu = double(row[K + best]);
  const double raw = double(row[2 * K + best]);
  const double scale = (raw > 0 ? raw : expm1(raw)) + 1.0001;  // elu(raw) + 1.0001
  const double v = u[K];
  // __dmul_rn / __dadd_rn: the CPU's rounding of the product and the sum (nvcc would contract them into one
  // FMA, which can move a sample across a level boundary).
  const double xs = fmin(fmax(__dadd_rn(mu, __dmul_rn(scale, log(v) - log1p(-v))), -1.0), 1.0);
  const double level = rint((xs + 1.0) / 2.0 * double(levels - 1));  // half to even
  const int64_t l = int64_t(level);
  return l < 0 ? 0 : (l > levels - 1 ? levels - 1 : l);
}

__global__ void start_kernel(int64_t R, int64_t* bad) {
  bad[0] = R;
  bad[1] = -1;
}

template <class T> __global__ void sample_kernel(const T* params, const double* uniforms, int64_t R, int64_t K,
                                                 int64_t levels, int64_t* out, int64_t* bad) {
  for (int64_t r = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < R; r += int64_t(gridDim.x) * blockDim.x) {
    const T* row = params + r * 3 * K;
    bool finite = true;
    for (int64_t k = 0; k < K && finite; ++k) finite = finite_component(row, K, k);
    if (!finite) {
      atomicMin(reinterpret_cast<long long*>(bad), (long long)r);
      continue;
    }
    out[r] = sample_row(row, uniforms + r * (K + 1), K, levels);
  }
}

template <class T> __global__ void finish_kernel(const T* params, int64_t R, int64_t K, int64_t* bad) {
  if (bad[0] >= R) {
    bad[0] = bad[1] = -1;
    return;
  }
  const T* row = params + bad[0] * 3 * K;
  for (int64_t k = 0; k < K; ++k)
    if (!finite_component(row, K, k)) {
      bad[1] = k;
      return;
    }
}

template <class T> void launch(int device, const T* params, const double* uniforms, int64_t R, int64_t K,
                               int64_t levels, int64_t* out, int64_t* bad) {
  const cudaStream_t s = stream_of(device);
  start_kernel<<<1, 1, 0, s>>>(R, bad);
  if (R > 0) {
    sample_kernel<T><<<grid_for(R, kRowsPerBlock), kRowsPerBlock, 0, s>>>(params, uniforms, R, K, levels, out, bad);
  }
  finish_kernel<T><<<1, 1, 0, s>>>(params, R, K, bad);
  check_launch(device, "sample_mol");
}

}  // namespace

void sample_mol(int device, Elem type, const void* params, const double* uniforms, int64_t R, int64_t K,
                int64_t levels, int64_t* out, int64_t* bad) {
  if (type == Elem::f32) {
    launch(device, static_cast<const float*>(params), uniforms, R, K, levels, out, bad);
  } else if (type == Elem::f64) {
    launch(device, static_cast<const double*>(params), uniforms, R, K, levels, out, bad);
  } else {
    detail::fail("sample_mol", device, "only float32 and float64 parameters are defined", __FILE__, __LINE__);
  }
}

}  // namespace lintra::cuda
