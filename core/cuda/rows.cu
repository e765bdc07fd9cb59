// cuda/rows.cu — the row kernels of cuda/rows.h: reduce, sum_squares, softmax and layer norm, forward
// and backward (the contracts and the math are in cuda/rows.h and core/kernels.h).
//
// Each row (each output element of reduce) belongs to one block of kRowThreads threads, which stride
// over the row, then combine their partial results in a tree in shared memory (block_reduce): a fixed
// order, so results are deterministic. Blocks stride over the rows (grid ≤ 65,535 blocks). Cost: one
// to three reads of the row and one write, memory-bound; the trees add log2(kRowThreads) steps.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/cuda/rows.h"
#include "core/cuda/runtime.h"
#include "core/scalar_ops.h"

namespace lintra::cuda {

namespace {

void check_launch(int device, const char* what) {
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) detail::fail(what, device, cudaGetErrorString(err), __FILE__, __LINE__);
}

cudaStream_t stream_of(int device) {
  set_current(device);
  return static_cast<cudaStream_t>(stream(device));
}

unsigned blocks_for(int64_t items) { return unsigned(std::clamp<int64_t>(items, 1, 65535)); }

// f.template operator()<T>() for the C++ type of `type`; floats only when `floats_only`.
template <bool floats_only, class F> void dispatch(int device, Elem type, const char* what, F&& f) {
  switch (type) {
    case Elem::f32: return f.template operator()<float>();
    case Elem::f64: return f.template operator()<double>();
    case Elem::i64:
      if constexpr (!floats_only) return f.template operator()<int64_t>();
      break;
    case Elem::u8:
      if constexpr (!floats_only) return f.template operator()<uint8_t>();
      break;
  }
  detail::fail(what, device, "this element type is not defined for the kernel (the caller should have refused it)",
               __FILE__, __LINE__);
}

// --- combining ------------------------------------------------------------------------------------

struct Add {
  template <class T> __device__ T operator()(T a, T b) const { return T(a + b); }
};
// NaN-propagating, as the CPU's reduce: a NaN on either side wins.
struct Max {
  template <class T> __device__ T operator()(T a, T b) const { return (b > a || b != b) ? b : a; }
};
struct Min {
  template <class T> __device__ T operator()(T a, T b) const { return (b < a || b != b) ? b : a; }
};
// The softmax's row maximum, as the CPU's (x > m ? x : m): NaN does not win.
struct RowMax {
  template <class T> __device__ T operator()(T a, T b) const { return b > a ? b : a; }
};

// Every thread's v combined in a fixed tree over shared memory `sh` (kRowThreads entries); every
// thread gets the result. Ends with a barrier, so `sh` may be reused at once.
template <class T, class C> __device__ T block_reduce(T v, C c, T* sh) {
  sh[threadIdx.x] = v;
  __syncthreads();
  for (int s = kRowThreads / 2; s > 0; s /= 2) {
    if (int(threadIdx.x) < s) sh[threadIdx.x] = c(sh[threadIdx.x], sh[threadIdx.x + s]);
    __syncthreads();
  }
  const T r = sh[0];
  __syncthreads();
  return r;
}

template <class T> __device__ T log_of(T v) {
  if constexpr (std::is_same_v<T, float>) {
    return logf(v);
  } else {
    return ::log(v);
  }
}

// --- reduce ---------------------------------------------------------------------------------------

// Offsets of flat output index o in x and in out (strides over the output's shape).
struct ReduceLayout {
  Shape shape;
  int64_t xs[kMaxDims], os[kMaxDims];
  int64_t R, rs;
};

__device__ inline void offsets(const ReduceLayout& l, int64_t o, int64_t& xo, int64_t& oo) {
  xo = 0;
  oo = 0;
  for (int d = l.shape.ndim - 1; d >= 0; --d) {
    const int64_t c = o % l.shape.sizes[d];
    o /= l.shape.sizes[d];
    xo += c * l.xs[d];
    oo += c * l.os[d];
  }
}

template <class T, class C> __global__ void reduce_by_block(ReduceLayout l, const T* x, T* out, T init, C c) {
  __shared__ T sh[kRowThreads];
  for (int64_t o = blockIdx.x; o < l.shape.numel; o += gridDim.x) {
    int64_t xo, oo;
    offsets(l, o, xo, oo);
    T acc = init;
    for (int64_t r = threadIdx.x; r < l.R; r += kRowThreads) acc = c(acc, x[xo + r * l.rs]);
    acc = block_reduce(acc, c, sh);
    if (threadIdx.x == 0) out[oo] = acc;
  }
}

template <class T, class C> __global__ void reduce_by_thread(ReduceLayout l, const T* x, T* out, T init, C c) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t o = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; o < l.shape.numel; o += step) {
    int64_t xo, oo;
    offsets(l, o, xo, oo);
    T acc = init;
    for (int64_t r = 0; r < l.R; ++r) acc = c(acc, x[xo + r * l.rs]);
    out[oo] = acc;
  }
}

template <class T> T identity(Reduce op) {
  if (op == Reduce::sum) return T(0);
  if constexpr (std::numeric_limits<T>::has_infinity) {
    return op == Reduce::max ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  } else {
    return op == Reduce::max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  }
}

template <class T, class C> void launch_reduce(int device, const ReduceLayout& l, const T* x, T* out, T init, C c) {
  cudaStream_t s = stream_of(device);
  // Short rows or many outputs (a bias gradient: columns summed over the batch): a thread per output,
  // whose neighbours read neighbouring columns. Long rows: a block per output.
  if (l.R <= 32 || l.shape.numel >= 16384) {
    reduce_by_thread<<<blocks_for((l.shape.numel + kRowThreads - 1) / kRowThreads), kRowThreads, 0, s>>>(l, x, out,
                                                                                                        init, c);
  } else {
    reduce_by_block<<<blocks_for(l.shape.numel), kRowThreads, 0, s>>>(l, x, out, init, c);
  }
  check_launch(device, "reduce kernel");
}

// --- sum_squares ----------------------------------------------------------------------------------

template <class T> __global__ void sum_squares_partials(const T* x, int64_t n, double* partials) {
  __shared__ double sh[kRowThreads];
  double acc = 0;
  const int64_t step = int64_t(kSumSquaresBlocks) * kRowThreads;
  for (int64_t i = int64_t(blockIdx.x) * kRowThreads + threadIdx.x; i < n; i += step) {
    const double v = double(x[i]);
    acc += v * v;
  }
  acc = block_reduce(acc, Add{}, sh);
  if (threadIdx.x == 0) partials[blockIdx.x] = acc;
}

__global__ void sum_partials(const double* partials, double* out) {
  static_assert(kSumSquaresBlocks == kRowThreads, "one partial per thread");
  __shared__ double sh[kRowThreads];
  const double total = block_reduce(partials[threadIdx.x], Add{}, sh);
  if (threadIdx.x == 0) out[0] = total;
}

// --- softmax --------------------------------------------------------------------------------------

template <class T> __global__ void softmax_rows(const T* x, int64_t row_stride, int64_t rows, int64_t D, bool log,
                                                T* y) {
  __shared__ T sh[kRowThreads];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * row_stride;
    T* yr = y + r * D;
    T m = -T(INFINITY);
    for (int64_t i = threadIdx.x; i < D; i += kRowThreads) m = RowMax{}(m, xr[i]);
    m = block_reduce(m, RowMax{}, sh);
    if (m == -T(INFINITY)) m = T(0);  // a fully masked row: keep exp finite
    T sum = 0;
    for (int64_t i = threadIdx.x; i < D; i += kRowThreads) sum += scalar::exp<T>(xr[i] - m);
    sum = block_reduce(sum, Add{}, sh);
    if (log) {
      const T lse = m + log_of(sum);
      for (int64_t i = threadIdx.x; i < D; i += kRowThreads) yr[i] = xr[i] - lse;
    } else {
      const T inv = T(1) / sum;
      for (int64_t i = threadIdx.x; i < D; i += kRowThreads) yr[i] = scalar::exp<T>(xr[i] - m) * inv;
    }
  }
}

template <class T> __global__ void softmax_backward_rows(const T* y, const T* dy, int64_t rows, int64_t D, bool log,
                                                         T* dx) {
  __shared__ T sh[kRowThreads];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T *yr = y + r * D, *gr = dy + r * D;
    T* dr = dx + r * D;
    T s = 0;
    for (int64_t i = threadIdx.x; i < D; i += kRowThreads) s += log ? gr[i] : gr[i] * yr[i];
    s = block_reduce(s, Add{}, sh);
    for (int64_t i = threadIdx.x; i < D; i += kRowThreads)
      dr[i] = log ? gr[i] - scalar::exp<T>(yr[i]) * s : yr[i] * (gr[i] - s);
  }
}

// --- layer norm -----------------------------------------------------------------------------------

template <class T> __global__ void layer_norm_rows(const T* x, const T* g, const T* b, double eps, int64_t R,
                                                   int64_t D, T* y, T* mean, T* rstd) {
  __shared__ double sh[kRowThreads];
  for (int64_t r = blockIdx.x; r < R; r += gridDim.x) {
    const T* xr = x + r * D;
    T* yr = y + r * D;
    double s = 0;
    for (int64_t i = threadIdx.x; i < D; i += kRowThreads) s += double(xr[i]);
    const double mu = block_reduce(s, Add{}, sh) / double(D);
    double v = 0;
    for (int64_t i = threadIdx.x; i < D; i += kRowThreads) {
      const double d = double(xr[i]) - mu;
      v += d * d;
    }
    v = block_reduce(v, Add{}, sh);
    const T rs = T(1.0 / ::sqrt(v / double(D) + eps));
    const T m = T(mu);
    for (int64_t i = threadIdx.x; i < D; i += kRowThreads) yr[i] = (xr[i] - m) * rs * g[i] + b[i];
    if (threadIdx.x == 0) {
      mean[r] = m;
      rstd[r] = rs;
    }
  }
}

template <class T> __global__ void layer_norm_backward_rows(const T* dy, const T* x, const T* mean, const T* rstd,
                                                            const T* g, int64_t R, int64_t D, T* dx) {
  __shared__ T sh[kRowThreads];
  for (int64_t r = blockIdx.x; r < R; r += gridDim.x) {
    const T *dyr = dy + r * D, *xr = x + r * D;
    T* dxr = dx + r * D;
    const T m = mean[r], rs = rstd[r];
    T sum_g = 0, sum_gx = 0;
    for (int64_t i = threadIdx.x; i < D; i += kRowThreads) {
      const T gi = dyr[i] * g[i];
      sum_g += gi;
      sum_gx += gi * ((xr[i] - m) * rs);
    }
    const T mg = block_reduce(sum_g, Add{}, sh) / T(D);
    const T mgx = block_reduce(sum_gx, Add{}, sh) / T(D);
    for (int64_t i = threadIdx.x; i < D; i += kRowThreads) {
      const T xh = (xr[i] - m) * rs;
      dxr[i] = rs * (dyr[i] * g[i] - mg - xh * mgx);
    }
  }
}

// partials[c·D + i] = Σ dy·x̂ and partials[(chunks + c)·D + i] = Σ dy over chunk c's rows, column i.
template <class T> __global__ void layer_norm_column_partials(const T* dy, const T* x, const T* mean, const T* rstd,
                                                              int64_t R, int64_t D, int64_t chunks, double* partials) {
  const int64_t i = int64_t(blockIdx.y) * kRowThreads + threadIdx.x, c = blockIdx.x;
  if (i >= D) return;
  const int64_t per = (R + chunks - 1) / chunks, end = (c + 1) * per < R ? (c + 1) * per : R;
  double dg = 0, db = 0;
  for (int64_t r = c * per; r < end; ++r) {
    const double d = double(dy[r * D + i]);
    dg += d * double((x[r * D + i] - mean[r]) * rstd[r]);
    db += d;
  }
  partials[c * D + i] = dg;
  partials[(chunks + c) * D + i] = db;
}

template <class T> __global__ void layer_norm_column_sums(const double* partials, int64_t D, int64_t chunks, T* dg,
                                                          T* db) {
  const int64_t i = int64_t(blockIdx.x) * kRowThreads + threadIdx.x;
  if (i >= D) return;
  double a = 0, b = 0;
  for (int64_t c = 0; c < chunks; ++c) {
    a += partials[c * D + i];
    b += partials[(chunks + c) * D + i];
  }
  dg[i] = T(a);
  db[i] = T(b);
}

// --- masked softmax, arg-reduce, cumsum -----------------------------------------------------------

// x's shape and the mask's strides over it (0 where the mask broadcasts).
struct MaskLayout {
  Shape shape;
  int64_t as[kMaxDims];
};

// Row r of x (contiguous, rows of S): the CPU's masked_row, in a block. A row with no allowed key is 0;
// otherwise y = (allowed ? exp(x − m) : 0) / Σ (so 0/0 gives NaN everywhere, as on the CPU).
template <class T> __global__ void masked_softmax_rows(const T* x, const uint8_t* a, MaskLayout l, int64_t rows,
                                                       int64_t S, T* y) {
  __shared__ T sh[kRowThreads];
  const int nd = l.shape.ndim;
  const int64_t ls = nd > 0 ? l.as[nd - 1] : 0;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    int64_t off = 0;
    for (int64_t d = nd - 2, rr = r; d >= 0; --d) {
      off += (rr % l.shape.sizes[d]) * l.as[d];
      rr /= l.shape.sizes[d];
    }
    const uint8_t* ar = a + off;
    const T* xr = x + r * S;
    T* yr = y + r * S;
    T m = -T(INFINITY);
    int any = 0;
    for (int64_t i = threadIdx.x; i < S; i += kRowThreads)
      if (ar[i * ls]) {
        any = 1;
        m = RowMax{}(m, xr[i]);
      }
    m = block_reduce(m, RowMax{}, sh);
    if (!__syncthreads_or(any)) {
      for (int64_t i = threadIdx.x; i < S; i += kRowThreads) yr[i] = T(0);
      continue;
    }
    if (m == -T(INFINITY)) m = T(0);
    T sum = 0;
    for (int64_t i = threadIdx.x; i < S; i += kRowThreads)
      if (ar[i * ls]) sum += scalar::exp<T>(xr[i] - m);
    const T inv = T(1) / block_reduce(sum, Add{}, sh);
    for (int64_t i = threadIdx.x; i < S; i += kRowThreads)
      yr[i] = (ar[i * ls] ? scalar::exp<T>(xr[i] - m) : T(0)) * inv;
  }
}

// values/indices over the output's shape (x's with dim → 1); a thread per output, the CPU's loop:
// first on ties, a NaN wins and stops the search.
struct ArgLayout {
  Shape shape;
  int64_t xs[kMaxDims], vs[kMaxDims], is[kMaxDims];
  int64_t R, rs;
};

template <class T> __global__ void arg_reduce_kernel(ArgLayout l, bool is_max, const T* x, T* values,
                                                     int64_t* indices) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t o = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; o < l.shape.numel; o += step) {
    int64_t xo = 0, vo = 0, io = 0;
    for (int64_t d = l.shape.ndim - 1, oo = o; d >= 0; --d) {
      const int64_t c = oo % l.shape.sizes[d];
      oo /= l.shape.sizes[d];
      xo += c * l.xs[d];
      vo += c * l.vs[d];
      io += c * l.is[d];
    }
    const T* p = x + xo;
    T best = p[0];
    int64_t best_r = 0;
    for (int64_t r = 1; r < l.R && best == best; ++r) {
      const T v = p[r * l.rs];
      if (is_max ? (v > best || v != v) : (v < best || v != v)) {
        best = v;
        best_r = r;
      }
    }
    values[vo] = best;
    indices[io] = best_r;
  }
}

// Inclusive prefix sums along the middle dim of (outer, R, inner), contiguous: a thread per (o, i)
// line, in the CPU's order (so float sums round the same way).
template <class T> __global__ void cumsum_kernel(const T* x, int64_t outer, int64_t R, int64_t inner, bool reverse,
                                                 T* out) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < outer * inner; t += step) {
    const int64_t o = t / inner, i = t % inner;
    T acc = 0;
    for (int64_t k = 0; k < R; ++k) {
      const int64_t at = (o * R + (reverse ? R - 1 - k : k)) * inner + i;
      acc = k == 0 ? x[at] : T(acc + x[at]);
      out[at] = acc;
    }
  }
}

}  // namespace

void reduce(int device, Reduce op, Elem type, const Shape& out_shape, const Operand& x, int64_t R, int64_t rs,
            const Target& out) {
  if (out_shape.numel == 0) return;
  ReduceLayout l{};
  l.shape = out_shape;
  for (int d = 0; d < kMaxDims; ++d) {
    l.xs[d] = x.strides[d];
    l.os[d] = out.strides[d];
  }
  l.R = R;
  l.rs = rs;
  dispatch<false>(device, type, "reduce kernel", [&]<class T>() {
    const T* xp = static_cast<const T*>(x.data);
    T* op_ = static_cast<T*>(out.data);
    const T init = identity<T>(op);
    switch (op) {
      case Reduce::sum: return launch_reduce(device, l, xp, op_, init, Add{});
      case Reduce::max: return launch_reduce(device, l, xp, op_, init, Max{});
      case Reduce::min: return launch_reduce(device, l, xp, op_, init, Min{});
    }
  });
}

void sum_squares(int device, Elem type, const void* x, int64_t n, double* partials, double* out) {
  dispatch<true>(device, type, "sum_squares kernel", [&]<class T>() {
    cudaStream_t s = stream_of(device);
    sum_squares_partials<T><<<kSumSquaresBlocks, kRowThreads, 0, s>>>(static_cast<const T*>(x), n, partials);
    sum_partials<<<1, kRowThreads, 0, s>>>(partials, out);
  });
  check_launch(device, "sum_squares kernel");
}

void softmax_forward(int device, Elem type, const void* x, int64_t row_stride, int64_t rows, int64_t D, bool log,
                     void* y) {
  if (rows == 0 || D == 0) return;
  dispatch<true>(device, type, "softmax_forward kernel", [&]<class T>() {
    softmax_rows<T><<<blocks_for(rows), kRowThreads, 0, stream_of(device)>>>(static_cast<const T*>(x), row_stride,
                                                                            rows, D, log, static_cast<T*>(y));
  });
  check_launch(device, "softmax_forward kernel");
}

void softmax_backward(int device, Elem type, const void* y, const void* dy, int64_t rows, int64_t D, bool log,
                      void* dx) {
  if (rows == 0 || D == 0) return;
  dispatch<true>(device, type, "softmax_backward kernel", [&]<class T>() {
    softmax_backward_rows<T><<<blocks_for(rows), kRowThreads, 0, stream_of(device)>>>(
        static_cast<const T*>(y), static_cast<const T*>(dy), rows, D, log, static_cast<T*>(dx));
  });
  check_launch(device, "softmax_backward kernel");
}

void layer_norm_forward(int device, Elem type, const void* x, const void* gamma, const void* beta, double eps,
                        int64_t R, int64_t D, void* y, void* mean, void* rstd) {
  if (R == 0 || D == 0) return;
  dispatch<true>(device, type, "layer_norm_forward kernel", [&]<class T>() {
    layer_norm_rows<T><<<blocks_for(R), kRowThreads, 0, stream_of(device)>>>(
        static_cast<const T*>(x), static_cast<const T*>(gamma), static_cast<const T*>(beta), eps, R, D,
        static_cast<T*>(y), static_cast<T*>(mean), static_cast<T*>(rstd));
  });
  check_launch(device, "layer_norm_forward kernel");
}

void layer_norm_backward(int device, Elem type, const void* dy, const void* x, const void* mean, const void* rstd,
                         const void* gamma, int64_t R, int64_t D, void* dx, void* dgamma, void* dbeta,
                         double* partials) {
  if (D == 0) return;
  const int64_t chunks = layer_norm_chunks(R);
  const unsigned column_blocks = unsigned((D + kRowThreads - 1) / kRowThreads);
  dispatch<true>(device, type, "layer_norm_backward kernel", [&]<class T>() {
    cudaStream_t s = stream_of(device);
    const T *dyp = static_cast<const T*>(dy), *xp = static_cast<const T*>(x);
    const T *mp = static_cast<const T*>(mean), *rp = static_cast<const T*>(rstd);
    if (R > 0) {
      layer_norm_backward_rows<T><<<blocks_for(R), kRowThreads, 0, s>>>(dyp, xp, mp, rp, static_cast<const T*>(gamma),
                                                                        R, D, static_cast<T*>(dx));
      layer_norm_column_partials<T><<<dim3(unsigned(chunks), column_blocks), kRowThreads, 0, s>>>(dyp, xp, mp, rp, R,
                                                                                                  D, chunks, partials);
    }
    layer_norm_column_sums<T><<<column_blocks, kRowThreads, 0, s>>>(partials, D, chunks, static_cast<T*>(dgamma),
                                                                    static_cast<T*>(dbeta));
  });
  check_launch(device, "layer_norm_backward kernel");
}

void masked_softmax_forward(int device, Elem type, const void* x, const uint8_t* allowed, const Shape& x_shape,
                            const int64_t* allowed_strides, void* y) {
  const int64_t S = x_shape.ndim == 0 ? 1 : x_shape.sizes[x_shape.ndim - 1];
  const int64_t rows = S == 0 ? 0 : x_shape.numel / S;
  if (rows == 0) return;
  MaskLayout l{};
  l.shape = x_shape;
  for (int d = 0; d < kMaxDims; ++d) l.as[d] = allowed_strides[d];
  dispatch<true>(device, type, "masked_softmax_forward kernel", [&]<class T>() {
    masked_softmax_rows<T><<<blocks_for(rows), kRowThreads, 0, stream_of(device)>>>(
        static_cast<const T*>(x), allowed, l, rows, S, static_cast<T*>(y));
  });
  check_launch(device, "masked_softmax_forward kernel");
}

void arg_reduce(int device, bool is_max, Elem type, const Shape& out_shape, const Operand& x, int64_t R, int64_t rs,
                const Target& values, const Target& indices) {
  if (out_shape.numel == 0) return;
  ArgLayout l{};
  l.shape = out_shape;
  for (int d = 0; d < kMaxDims; ++d) {
    l.xs[d] = x.strides[d];
    l.vs[d] = values.strides[d];
    l.is[d] = indices.strides[d];
  }
  l.R = R;
  l.rs = rs;
  dispatch<false>(device, type, "arg_reduce kernel", [&]<class T>() {
    arg_reduce_kernel<T><<<blocks_for((out_shape.numel + kRowThreads - 1) / kRowThreads), kRowThreads, 0,
                           stream_of(device)>>>(l, is_max, static_cast<const T*>(x.data), static_cast<T*>(values.data),
                                                static_cast<int64_t*>(indices.data));
  });
  check_launch(device, "arg_reduce kernel");
}

void cumsum(int device, Elem type, const void* x, int64_t outer, int64_t R, int64_t inner, bool reverse, void* out) {
  if (outer * R * inner == 0) return;
  dispatch<false>(device, type, "cumsum kernel", [&]<class T>() {
    cumsum_kernel<T><<<blocks_for((outer * inner + kRowThreads - 1) / kRowThreads), kRowThreads, 0,
                       stream_of(device)>>>(static_cast<const T*>(x), outer, R, inner, reverse, static_cast<T*>(out));
  });
  check_launch(device, "cumsum kernel");
}

}  // namespace lintra::cuda
