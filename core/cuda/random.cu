// cuda/random.cu — the uniform and normal fills of cuda/random.h: Philox blocks (core/philox.h) turned
// into numbers exactly as core/cpu/random.cpp does, one thread per block.
#include <cuda_runtime.h>

#include <algorithm>

#include "core/cuda/random.h"
#include "core/cuda/launch.cuh"
#include "core/cuda/runtime.h"
#include "core/philox.h"

namespace lintra::cuda {

namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

// lo + span·u with the product and the sum rounded separately (no fused multiply-add), as on the CPU.
__device__ inline float affine(float lo, float span, float u) { return __fadd_rn(lo, __fmul_rn(span, u)); }
__device__ inline double affine(double lo, double span, double u) { return __dadd_rn(lo, __dmul_rn(span, u)); }

template <class T> __global__ void uniform_kernel(T* out, int64_t n, uint64_t first, uint64_t stream, uint64_t seed,
                                                  T lo, T span) {
  constexpr int64_t per_block = sizeof(T) == 4 ? 4 : 2;
  const int64_t blocks = (n + per_block - 1) / per_block;
  for (int64_t b = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; b < blocks; b += int64_t(gridDim.x) * blockDim.x) {
    const philox::Words w = philox::block(first + uint64_t(b), stream, seed);
    for (int k = 0; k < per_block && b * per_block + k < n; ++k) {
      if constexpr (sizeof(T) == 4) out[b * per_block + k] = affine(lo, span, philox::unit_float(w.w[k]));
      else out[b * per_block + k] = affine(lo, span, philox::unit_double(philox::pair(w, k)));
    }
  }
}

// Box–Muller on the block's uniforms, as the CPU: float32 two pairs (words 0–1, 2–3) in float64,
// u1 = 1 − unit_float ∈ (0, 1]; float64 one pair of 64-bit uniforms.
template <class T> __global__ void normal_kernel(T* out, int64_t n, uint64_t first, uint64_t stream, uint64_t seed,
                                                 double mean, double std) {
  constexpr int64_t per_block = sizeof(T) == 4 ? 4 : 2;
  const int64_t blocks = (n + per_block - 1) / per_block;
  for (int64_t b = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; b < blocks; b += int64_t(gridDim.x) * blockDim.x) {
    const philox::Words w = philox::block(first + uint64_t(b), stream, seed);
    double z[4];
    if constexpr (sizeof(T) == 4) {
      for (int pair = 0; pair < 2; ++pair) {
        const double u1 = 1.0 - double(philox::unit_float(w.w[2 * pair]));
        const double u2 = double(philox::unit_float(w.w[2 * pair + 1]));
        const double r = sqrt(-2.0 * log(u1));
        z[2 * pair] = r * cos(kTwoPi * u2);
        z[2 * pair + 1] = r * sin(kTwoPi * u2);
      }
    } else {
      const double u1 = 1.0 - philox::unit_double(philox::pair(w, 0));
      const double u2 = philox::unit_double(philox::pair(w, 1));
      const double r = sqrt(-2.0 * log(u1));
      z[0] = r * cos(kTwoPi * u2);
      z[1] = r * sin(kTwoPi * u2);
    }
    for (int k = 0; k < per_block && b * per_block + k < n; ++k) out[b * per_block + k] = T(affine(mean, std, z[k]));
  }
}

// Dropout: one thread per block of 4 elements, the uniform fill's words compared and multiplied in place
// of being stored; then the optional gate and residual, as the CPU kernel (cpu/random.cpp).
__global__ void dropout_kernel(const float* x, const float* gate, const float* residual, float* out, int64_t n,
                               uint64_t first, uint64_t stream, uint64_t seed, float keep, float scale) {
  const int64_t blocks = (n + 3) / 4;
  for (int64_t b = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; b < blocks; b += int64_t(gridDim.x) * blockDim.x) {
    const philox::Words w = philox::block(first + uint64_t(b), stream, seed);
    for (int k = 0; k < 4 && b * 4 + k < n; ++k) {
      const int64_t i = b * 4 + k;
      float d = __fmul_rn(x[i], philox::unit_float(w.w[k]) < keep ? scale : 0.0f);
      if (gate != nullptr && !(gate[i] > 0.0f)) d = 0.0f;
      out[i] = residual != nullptr ? __fadd_rn(residual[i], d) : d;
    }
  }
}

}  // namespace

void dropout(int device, const float* x, const float* gate, const float* residual, float* out, int64_t n,
             uint64_t first, uint64_t stream, uint64_t seed, float keep, float scale) {
  if (n == 0) return;
  dropout_kernel<<<grid_for((n + 3) / 4), kThreads, 0, stream_of(device)>>>(x, gate, residual, out, n, first, stream,
                                                                             seed, keep, scale);
  check_launch(device, "dropout");
}

void uniform(int device, Elem type, void* out, int64_t n, uint64_t first, uint64_t stream, uint64_t seed, double low,
             double high) {
  if (n == 0) return;
  const cudaStream_t s = stream_of(device);
  if (type == Elem::f32) {
    uniform_kernel<float><<<grid_for((n + 3) / 4), kThreads, 0, s>>>(static_cast<float*>(out), n, first, stream, seed,
                                                           float(low), float(high - low));
  } else if (type == Elem::f64) {
    uniform_kernel<double><<<grid_for((n + 3) / 4), kThreads, 0, s>>>(static_cast<double*>(out), n, first, stream, seed, low,
                                                            high - low);
  } else {
    detail::fail("uniform", device, "only float32 and float64 fills exist (the caller should have refused it)",
                 __FILE__, __LINE__);
  }
  check_launch(device, "uniform");
}

void normal(int device, Elem type, void* out, int64_t n, uint64_t first, uint64_t stream, uint64_t seed, double mean,
            double std) {
  if (n == 0) return;
  const cudaStream_t s = stream_of(device);
  if (type == Elem::f32) {
    normal_kernel<float><<<grid_for((n + 3) / 4), kThreads, 0, s>>>(static_cast<float*>(out), n, first, stream, seed, mean, std);
  } else if (type == Elem::f64) {
    normal_kernel<double><<<grid_for((n + 3) / 4), kThreads, 0, s>>>(static_cast<double*>(out), n, first, stream, seed, mean,
                                                           std);
  } else {
    detail::fail("normal", device, "only float32 and float64 fills exist (the caller should have refused it)",
                 __FILE__, __LINE__);
  }
  check_launch(device, "normal");
}

}  // namespace lintra::cuda
