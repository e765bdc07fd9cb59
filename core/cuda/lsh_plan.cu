// cuda/lsh_plan.cu — the two launches of cuda/lsh_plan.h.
#include <cuda_runtime.h>

#include "core/cuda/lsh_plan.h"
#include "core/cuda/launch.cuh"
#include "core/cuda/runtime.h"

namespace lintra::cuda {

namespace {

// (1) The CPU's sort_round for (b, h) = blockIdx.x, by its first thread; perm: −1 for fill slots.
__global__ void sort_kernel(LshPlanShape g, const int64_t* buckets, const int64_t* lengths, int64_t* scatter,
                            int64_t* query_rows, int64_t* scratch) {
  const int64_t bh = blockIdx.x;
  int64_t* perm = scratch + bh * (g.Np + g.n_keys + 1);
  int64_t* start = perm + g.Np;
  for (int64_t t = threadIdx.x; t < g.Np; t += blockDim.x) perm[t] = -1;
  for (int64_t k = threadIdx.x; k <= g.n_keys; k += blockDim.x) start[k] = 0;
  __syncthreads();
  if (threadIdx.x == 0) {
    const int64_t len = lengths[bh / g.H];
    const int64_t* bk = buckets + bh * g.N;
    for (int64_t j = 0; j < g.N; ++j) ++start[(j < len ? bk[j] : g.n_keys - 1) + 1];
    for (int64_t k = 0; k < g.n_keys; ++k) start[k + 1] += start[k];
    for (int64_t j = 0; j < g.N; ++j) {
      const int64_t slot = start[j < len ? bk[j] : g.n_keys - 1]++;
      perm[slot] = j;
      scatter[bh * g.N + j] = bh * g.Np + slot;
    }
  }
  __syncthreads();
  for (int64_t t = threadIdx.x; t < g.Np; t += blockDim.x)
    query_rows[bh * g.Np + t] = bh * g.N + (perm[t] > 0 ? perm[t] : 0);
}

// The key position of window column w of chunk c (−1: none), as the CPU's chunk_masks.
__device__ inline int64_t window_key(const LshPlanShape& g, const int64_t* perm, int64_t c, int64_t w) {
  int64_t slot;
  if (g.W == g.C) slot = c * g.C + w;
  else if (w < g.C) slot = c == 0 ? -1 : (c - 1) * g.C + w;
  else slot = c * g.C + (w - g.C);
  return slot < 0 ? -1 : perm[slot];
}

// (2) Chunk c of (b, h) (block bh · nc + c): window rows, the additive mask and row_ok.
template <class T> __global__ void mask_kernel(LshPlanShape g, const int64_t* lengths, bool causal, bool masked,
                                               T self_logit, int64_t* window_rows, T* additive, T* row_ok,
                                               const int64_t* scratch) {
  const int64_t c = blockIdx.x % g.nc, bh = blockIdx.x / g.nc, len = lengths[bh / g.H];
  const int64_t* perm = scratch + bh * (g.Np + g.n_keys + 1);
  for (int64_t w = threadIdx.x; w < g.W; w += blockDim.x) {
    const int64_t kp = window_key(g, perm, c, w);
    window_rows[(bh * g.nc + c) * g.W + w] = bh * g.N + (kp > 0 ? kp : 0);
  }
  for (int64_t i = threadIdx.x; i < g.C; i += blockDim.x) {  // a thread per query row of the chunk
    const int64_t qp = perm[c * g.C + i];
    T* m = additive + ((bh * g.nc + c) * g.C + i) * g.W;
    int64_t admissible = 0;
    for (int64_t w = 0; w < g.W; ++w) {
      const int64_t kp = window_key(g, perm, c, w);
      const bool allowed = kp >= 0 && kp < len && !(causal && kp > qp);
      admissible += allowed;
      m[w] = !allowed ? T(-INFINITY) : (masked && kp == qp ? self_logit : T(0));
    }
    row_ok[(bh * g.nc + c) * g.C + i] = admissible > 0 ? T(1) : T(0);
    if (admissible == 0)
      for (int64_t w = 0; w < g.W; ++w) m[w] = T(0);
  }
}

}  // namespace

void lsh_plan(int device, Elem type, const LshPlanShape& g, const int64_t* buckets, const int64_t* lengths, bool causal,
              bool masked, double self_logit, int64_t* query_rows, int64_t* window_rows, int64_t* scatter,
              void* additive, void* row_ok, int64_t* scratch) {
  if (g.BH == 0) return;
  const cudaStream_t s = stream_of(device);
  sort_kernel<<<unsigned(g.BH), kThreads, 0, s>>>(g, buckets, lengths, scatter, query_rows, scratch);
  check_launch(device, "lsh_plan (sort)");
  if (g.nc == 0) return;
  // One block per (bh, chunk), flattened in x (up to 2³¹ − 1 blocks; y and z stop at 65,535).
  const unsigned grid = unsigned(g.nc * g.BH);
  if (type == Elem::f32) {
    mask_kernel<float><<<grid, kThreads, 0, s>>>(g, lengths, causal, masked, float(self_logit), window_rows,
                                                 static_cast<float*>(additive), static_cast<float*>(row_ok), scratch);
  } else if (type == Elem::f64) {
    mask_kernel<double><<<grid, kThreads, 0, s>>>(g, lengths, causal, masked, self_logit, window_rows,
                                                  static_cast<double*>(additive), static_cast<double*>(row_ok),
                                                  scratch);
  } else {
    detail::fail("lsh_plan", device, "only float32 and float64 masks are defined", __FILE__, __LINE__);
  }
  check_launch(device, "lsh_plan (masks)");
}

}  // namespace lintra::cuda
