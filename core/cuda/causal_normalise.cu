// cuda/causal_normalise.cu — the normaliser's kernels (cuda/causal_normalise.h has the math and plan).
#include <cuda_runtime.h>

#include "core/cuda/causal_normalise.h"
#include "core/cuda/launch.cuh"

namespace lintra::cuda {

namespace {

constexpr int kWarp = 32;

template <class T> __device__ T warp_sum(T v) {
  for (int o = kWarp / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

template <class T> __device__ const T* row_of(const T* p, int64_t b, int64_t h, int64_t t, int64_t bs, int64_t hs,
                                               int64_t rs) {
  return p + b * bs + h * hs + t * rs;
}

// One warp (one block) per (b, h); z: E elements of shared memory.
template <class T>
__global__ void forward_kernel(NormaliseDims dm, const T* q, const T* k, const T* num, T eps, T* out, T* den) {
  extern __shared__ unsigned char smem[];
  T* z = reinterpret_cast<T*>(smem);
  const int64_t bh = blockIdx.x, b = bh / dm.H, h = bh % dm.H;
  const int lane = threadIdx.x;
  for (int64_t e = lane; e < dm.E; e += kWarp) z[e] = T(0);
  for (int64_t t = 0; t < dm.N; ++t) {
    const T* qt = row_of(q, b, h, t, dm.q_bs, dm.q_hs, dm.q_rs);
    const T* kt = row_of(k, b, h, t, dm.k_bs, dm.k_hs, dm.k_rs);
    T part = T(0);
    for (int64_t e = lane; e < dm.E; e += kWarp) {
      z[e] += kt[e];
      part += qt[e] * z[e];
    }
    const T d = warp_sum(part) + eps;
    if (lane == 0) den[bh * dm.N + t] = d;
    const T* nt = num + (bh * dm.N + t) * dm.M;
    T* ot = out + (bh * dm.N + t) * dm.M;
    for (int64_t m = lane; m < dm.M; m += kWarp) ot[m] = nt[m] / d;
  }
}

template <class T>
__global__ void backward_kernel(NormaliseDims dm, const T* q, const T* k, const T* out, const T* den, const T* g,
                                T* gnum, T* gq, T* gk, T* c) {
  extern __shared__ unsigned char smem[];
  T* z = reinterpret_cast<T*>(smem);
  const int64_t bh = blockIdx.x, b = bh / dm.H, h = bh % dm.H;
  const int lane = threadIdx.x;
  for (int64_t e = lane; e < dm.E; e += kWarp) z[e] = T(0);
  for (int64_t t = 0; t < dm.N; ++t) {  // ascending: Z, c, gnum, gq
    const T* kt = row_of(k, b, h, t, dm.k_bs, dm.k_hs, dm.k_rs);
    const int64_t r = bh * dm.N + t;
    const T* gt = g + r * dm.M;
    const T* ot = out + r * dm.M;
    T part = T(0);
    for (int64_t m = lane; m < dm.M; m += kWarp) part += gt[m] * ot[m];
    const T d = den[r];
    const T ct = -warp_sum(part) / d;
    if (lane == 0) c[r] = ct;
    for (int64_t m = lane; m < dm.M; m += kWarp) gnum[r * dm.M + m] = gt[m] / d;
    for (int64_t e = lane; e < dm.E; e += kWarp) {
      z[e] += kt[e];
      gq[r * dm.E + e] = ct * z[e];
    }
  }
  __syncwarp();
  for (int64_t e = lane; e < dm.E; e += kWarp) z[e] = T(0);
  for (int64_t t = dm.N - 1; t >= 0; --t) {  // descending: gk_t = Σ_{i≥t} c_i q_i
    const T* qt = row_of(q, b, h, t, dm.q_bs, dm.q_hs, dm.q_rs);
    const int64_t r = bh * dm.N + t;
    const T ct = c[r];
    for (int64_t e = lane; e < dm.E; e += kWarp) {
      z[e] += ct * qt[e];
      gk[r * dm.E + e] = z[e];
    }
  }
}

template <class T> void launch_forward(int device, const NormaliseDims& dm, const void* q, const void* k,
                                       const void* num, double eps, void* out, void* den) {
  forward_kernel<T><<<unsigned(dm.BH), kWarp, size_t(dm.E) * sizeof(T), stream_of(device)>>>(
      dm, static_cast<const T*>(q), static_cast<const T*>(k), static_cast<const T*>(num), T(eps),
      static_cast<T*>(out), static_cast<T*>(den));
  check_launch(device, "causal_normalise_forward");
}

template <class T>
void launch_backward(int device, const NormaliseDims& dm, const void* q, const void* k, const void* out,
                     const void* den, const void* g, void* gnum, void* gq, void* gk, void* c) {
  backward_kernel<T><<<unsigned(dm.BH), kWarp, size_t(dm.E) * sizeof(T), stream_of(device)>>>(
      dm, static_cast<const T*>(q), static_cast<const T*>(k), static_cast<const T*>(out), static_cast<const T*>(den),
      static_cast<const T*>(g), static_cast<T*>(gnum), static_cast<T*>(gq), static_cast<T*>(gk), static_cast<T*>(c));
  check_launch(device, "causal_normalise_backward");
}

}  // namespace

void causal_normalise_forward(int device, Elem type, const NormaliseDims& dm, const void* q, const void* k,
                              const void* num, double eps, void* out, void* den) {
  if (dm.BH == 0 || dm.N == 0) return;
  if (type == Elem::f32) launch_forward<float>(device, dm, q, k, num, eps, out, den);
  else if (type == Elem::f64) launch_forward<double>(device, dm, q, k, num, eps, out, den);
  else detail::fail("causal_normalise", device, "only float32 and float64 are defined", __FILE__, __LINE__);
}

void causal_normalise_backward(int device, Elem type, const NormaliseDims& dm, const void* q, const void* k,
                               const void* out, const void* den, const void* g, void* gnum, void* gq, void* gk,
                               void* c) {
  if (dm.BH == 0 || dm.N == 0) return;
  if (type == Elem::f32) launch_backward<float>(device, dm, q, k, out, den, g, gnum, gq, gk, c);
  else if (type == Elem::f64) launch_backward<double>(device, dm, q, k, out, den, g, gnum, gq, gk, c);
  else detail::fail("causal_normalise (backward)", device, "only float32 and float64 are defined", __FILE__, __LINE__);
}

}  // namespace lintra::cuda
