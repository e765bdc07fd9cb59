// cuda/causal_product.cu — the chunked causal product of cuda/causal_product.h (the math and the three
// launches are described there).
//
// Row p of a logical sequence is physical row p, or N − 1 − p when reverse: the causal algorithm on the
// logical order is the anti-causal one on the physical order. Rows past N load as 0 and are not stored.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>

#include "core/cuda/causal_product.h"
#include "core/cuda/launch.cuh"
#include "core/cuda/runtime.h"

namespace lintra::cuda {

namespace {

// Dynamic shared memory a block may use without asking (every GPU), and with asking: the device's
// opt-in maximum (227 KiB on the H100 and H200), read once per device.
constexpr size_t kSharedBytes = 48 * 1024;

size_t shared_optin_bytes(int device) {
  static std::atomic<int> cached[64] = {};  // 0: not read yet (threads may read it at once: same value)
  if (device < 0 || device >= 64) return kSharedBytes;
  int bytes = cached[device].load(std::memory_order_relaxed);
  if (bytes == 0) {
    if (cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess ||
        bytes < int(kSharedBytes))
      bytes = int(kSharedBytes);
    cached[device].store(bytes, std::memory_order_relaxed);
  }
  return size_t(bytes);
}

// Shared memory of the output pass: A_c, B_c (C × Dk), C_c (C × Dc), P (Dk × Dc), scores (C × C).
size_t output_shared(size_t elem, int64_t C, int64_t Dk, int64_t Dc) {
  return elem * size_t(C * (2 * Dk + Dc) + Dk * Dc + C * C);
}

struct Dims {
  int64_t N, Dk, Dc, C, chunks;
  bool reverse;
  __device__ int64_t row(int64_t p) const { return reverse ? N - 1 - p : p; }
};

// Rows [p0, p0 + C) of x (N × D for this bh) into s (C × D), 0 past N.
template <class T> __device__ void load_rows(const T* x, const Dims& dm, int64_t p0, int64_t D, T* s) {
  for (int64_t idx = threadIdx.x; idx < dm.C * D; idx += blockDim.x) {
    const int64_t i = idx / D, e = idx % D, p = p0 + i;
    s[idx] = p < dm.N ? x[dm.row(p) * D + e] : T(0);
  }
}

// (1) ΔS_c = Σ_{j∈c} b_j c_jᵀ into scratch[bh][chunk] (Dk × Dc). Grid chunks · BH, block bh · chunks + chunk.
template <class T> __global__ void chunk_state_kernel(const T* b, const T* c, T* scratch, Dims dm) {
  extern __shared__ __align__(16) unsigned char raw[];
  T* Bs = reinterpret_cast<T*>(raw);
  T* Cs = Bs + dm.C * dm.Dk;
  const int64_t bh = blockIdx.x / dm.chunks, chunk = blockIdx.x % dm.chunks, p0 = chunk * dm.C;
  load_rows(b + bh * dm.N * dm.Dk, dm, p0, dm.Dk, Bs);
  load_rows(c + bh * dm.N * dm.Dc, dm, p0, dm.Dc, Cs);
  __syncthreads();
  T* out = scratch + (bh * dm.chunks + chunk) * dm.Dk * dm.Dc;
  for (int64_t idx = threadIdx.x; idx < dm.Dk * dm.Dc; idx += blockDim.x) {
    const int64_t e = idx / dm.Dc, m = idx % dm.Dc;
    T acc = 0;
    for (int64_t j = 0; j < dm.C; ++j) acc += Bs[j * dm.Dk + e] * Cs[j * dm.Dc + m];
    out[idx] = acc;
  }
}

// (2) Exclusive prefix sums over the chunks, in place, one thread per (bh, e·Dc + m).
template <class T> __global__ void prefix_kernel(T* scratch, int64_t BH, Dims dm) {
  const int64_t per = dm.Dk * dm.Dc;
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < BH * per; t += int64_t(gridDim.x) * blockDim.x) {
    T* s = scratch + (t / per) * dm.chunks * per + t % per;
    T running = 0;
    for (int64_t ch = 0; ch < dm.chunks; ++ch) {
      const T here = s[ch * per];
      s[ch * per] = running;
      running += here;
    }
  }
}

// (3) O_c = A_c P_c + tril(A_c B_cᵀ) C_c. Grid chunks · BH, block bh · chunks + chunk.
template <class T> __global__ void output_kernel(const T* a, const T* b, const T* c, const T* scratch, T* out, Dims dm) {
  extern __shared__ __align__(16) unsigned char raw[];
  T* As = reinterpret_cast<T*>(raw);
  T* Bs = As + dm.C * dm.Dk;
  T* Cs = Bs + dm.C * dm.Dk;
  T* P = Cs + dm.C * dm.Dc;
  T* S = P + dm.Dk * dm.Dc;
  const int64_t bh = blockIdx.x / dm.chunks, chunk = blockIdx.x % dm.chunks, p0 = chunk * dm.C;
  load_rows(a + bh * dm.N * dm.Dk, dm, p0, dm.Dk, As);
  load_rows(b + bh * dm.N * dm.Dk, dm, p0, dm.Dk, Bs);
  load_rows(c + bh * dm.N * dm.Dc, dm, p0, dm.Dc, Cs);
  const T* prefix = scratch + (bh * dm.chunks + chunk) * dm.Dk * dm.Dc;
  for (int64_t idx = threadIdx.x; idx < dm.Dk * dm.Dc; idx += blockDim.x) P[idx] = prefix[idx];
  __syncthreads();
  for (int64_t idx = threadIdx.x; idx < dm.C * dm.C; idx += blockDim.x) {
    const int64_t i = idx / dm.C, j = idx % dm.C;
    T acc = 0;
    if (j <= i)
      for (int64_t e = 0; e < dm.Dk; ++e) acc += As[i * dm.Dk + e] * Bs[j * dm.Dk + e];
    S[idx] = acc;
  }
  __syncthreads();
  T* o = out + bh * dm.N * dm.Dc;
  for (int64_t idx = threadIdx.x; idx < dm.C * dm.Dc; idx += blockDim.x) {
    const int64_t i = idx / dm.Dc, m = idx % dm.Dc, p = p0 + i;
    if (p >= dm.N) continue;
    T acc = 0;
    for (int64_t e = 0; e < dm.Dk; ++e) acc += As[i * dm.Dk + e] * P[e * dm.Dc + m];
    for (int64_t j = 0; j <= i; ++j) acc += S[i * dm.C + j] * Cs[j * dm.Dc + m];
    o[dm.row(p) * dm.Dc + m] = acc;
  }
}

template <class T> void launch(int device, const T* a, const T* b, const T* c, T* out, int64_t BH, int64_t N,
                               int64_t Dk, int64_t Dc, bool reverse, T* scratch) {
  const int64_t C = causal_product_chunk(device, sizeof(T) == 4 ? Elem::f32 : Elem::f64, Dk, Dc);
  if (C == 0) detail::fail("causal_product", device, "the head dims do not fit shared memory", __FILE__, __LINE__);
  const Dims dm{N, Dk, Dc, C, (N + C - 1) / C, reverse};
  const cudaStream_t s = stream_of(device);
  const size_t state_bytes = sizeof(T) * size_t(C * (Dk + Dc)), output_bytes = output_shared(sizeof(T), C, Dk, Dc);
  if (output_bytes > kSharedBytes) {  // beyond 48 KiB a kernel must ask (output_bytes ≥ state_bytes)
    check_call(cudaFuncSetAttribute(output_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(output_bytes)),
               device, "causal_product (shared memory of the outputs)");
    check_call(cudaFuncSetAttribute(chunk_state_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(state_bytes)),
               device, "causal_product (shared memory of the chunk states)");
  }
  // One block per (bh, chunk), flattened in x (up to 2³¹ − 1 blocks; y and z stop at 65,535).
  const unsigned grid = unsigned(dm.chunks * BH);
  chunk_state_kernel<T><<<grid, kThreads, state_bytes, s>>>(b, c, scratch, dm);
  check_launch(device, "causal_product (chunk states)");
  const int64_t threads = BH * Dk * Dc;
  prefix_kernel<T><<<unsigned(std::clamp<int64_t>((threads + kThreads - 1) / kThreads, 1, 65535)), kThreads, 0, s>>>(
      scratch, BH, dm);
  check_launch(device, "causal_product (prefix)");
  output_kernel<T><<<grid, kThreads, output_bytes, s>>>(a, b, c, scratch, out, dm);
  check_launch(device, "causal_product (outputs)");
}

}  // namespace

int causal_product_chunk(int device, Elem type, int64_t Dk, int64_t Dc) {
  const size_t elem = type == Elem::f64 ? 8 : 4;
  for (const int64_t C : {64, 32, 16})  // without asking for shared memory: the most blocks per SM
    if (output_shared(elem, C, Dk, Dc) <= kSharedBytes) return int(C);
  const size_t optin = shared_optin_bytes(device);
  for (const int64_t C : {64, 32, 16})  // larger heads (float64 64 × 64: 164 KiB at 64 rows)
    if (output_shared(elem, C, Dk, Dc) <= optin) return int(C);
  return 0;
}

size_t causal_product_shared_limit(int device) { return shared_optin_bytes(device); }

void causal_product(int device, Elem type, const void* a, const void* b, const void* c, void* out, int64_t BH,
                    int64_t N, int64_t Dk, int64_t Dc, bool reverse, void* scratch) {
  if (BH == 0 || N == 0 || Dc == 0) return;
  if (type == Elem::f32) {
    launch(device, static_cast<const float*>(a), static_cast<const float*>(b), static_cast<const float*>(c),
           static_cast<float*>(out), BH, N, Dk, Dc, reverse, static_cast<float*>(scratch));
  } else if (type == Elem::f64) {
    launch(device, static_cast<const double*>(a), static_cast<const double*>(b), static_cast<const double*>(c),
           static_cast<double*>(out), BH, N, Dk, Dc, reverse, static_cast<double*>(scratch));
  } else {
    detail::fail("causal_product", device, "only float32 and float64 are defined", __FILE__, __LINE__);
  }
}

}  // namespace lintra::cuda
