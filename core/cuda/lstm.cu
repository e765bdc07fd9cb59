// cuda/lstm.cu — the per-step LSTM kernels of cuda/lstm.h.
#include <cuda_runtime.h>

#include <algorithm>

#include "core/cuda/lstm.h"
#include "core/cuda/launch.cuh"
#include "core/cuda/runtime.h"
#include "core/scalar_ops.h"

namespace lintra::cuda {

namespace {

template <class F> void floats(int device, Elem type, const char* what, F&& f) {
  if (type == Elem::f32) return f.template operator()<float>();
  if (type == Elem::f64) return f.template operator()<double>();
  detail::fail(what, device, "only float32 and float64 are defined", __FILE__, __LINE__);
}

// The frame step s of sequence b reads and writes (s < T_b).
__device__ inline int64_t frame_of(const LstmStep& st, int64_t T_b) { return st.reverse ? T_b - 1 - st.s : st.s; }

template <class T> __global__ void cell_forward_kernel(LstmStep st, T* pre, const T* xw, const T* bias, T* acts,
                                                       const T* h_prev, const T* c_prev, T* h_next, T* c_next, T* out) {
  const int64_t H = st.H, G = 4 * H;
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < st.B * H; t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t b = t / H, j = t % H, T_b = st.lengths[b];
    T* ab = acts + b * G;
    if (st.s >= T_b) {
      h_next[t] = h_prev[t];
      c_next[t] = c_prev[t];
      for (int q = 0; q < 4; ++q) ab[q * H + j] = T(0);
      out[(b * st.T + st.s) * H + j] = T(0);
      continue;
    }
    const int64_t tau = frame_of(st, T_b);
    const T* x = xw + (b * st.T + tau) * G;
    T* a = pre + b * G;
    T g[4];
    for (int q = 0; q < 4; ++q) {
      const int64_t k = q * H + j;
      a[k] += x[k] + bias[k];
      g[q] = q == 2 ? T(tanh(a[k])) : scalar::sigmoid<T>(a[k]);
      ab[k] = g[q];
    }
    const T c = g[1] * c_prev[t] + g[0] * g[2];
    c_next[t] = c;
    h_next[t] = g[3] * T(tanh(c));
    out[(b * st.T + tau) * H + j] = h_next[t];
  }
}

template <class T> __global__ void cell_backward_kernel(LstmStep st, const T* acts, const T* c_now, const T* c_prev,
                                                        const T* go, T* dh, T* dc, T* dgates, T* dxw) {
  const int64_t H = st.H, G = 4 * H;
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < st.B * H; t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t b = t / H, j = t % H, T_b = st.lengths[b];
    T* dg = dgates + b * G;
    if (st.s >= T_b) {
      for (int q = 0; q < 4; ++q) {
        dg[q * H + j] = T(0);
        dxw[(b * st.T + st.s) * G + q * H + j] = T(0);
      }
      continue;
    }
    const int64_t tau = frame_of(st, T_b);
    const T* ab = acts + b * G;
    const T i = ab[j], f = ab[H + j], g = ab[2 * H + j], o = ab[3 * H + j];
    const T dhj = dh[t] + go[(b * st.T + tau) * H + j];
    const T tc = T(tanh(c_now[t]));
    const T dcj = dc[t] + dhj * o * (T(1) - tc * tc);
    const T da[4] = {dcj * g * i * (T(1) - i), dcj * c_prev[t] * f * (T(1) - f), dcj * i * (T(1) - g * g),
                     dhj * tc * o * (T(1) - o)};
    for (int q = 0; q < 4; ++q) {
      dg[q * H + j] = da[q];
      dxw[(b * st.T + tau) * G + q * H + j] = da[q];
    }
    dc[t] = dcj * f;
  }
}

template <class T> __global__ void take_recurrent_kernel(LstmStep st, const T* rec, T* dh) {
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < st.B * st.H; t += int64_t(gridDim.x) * blockDim.x)
    if (st.s < st.lengths[t / st.H]) dh[t] = rec[t];
}

}  // namespace

void lstm_cell_forward(int device, Elem type, const LstmStep& st, void* pre, const void* xw, const void* bias,
                       void* acts, const void* h_prev, const void* c_prev, void* h_next, void* c_next, void* out) {
  if (st.B * st.H == 0) return;
  const cudaStream_t s = stream_of(device);
  floats(device, type, "lstm_forward", [&]<class T>() {
    cell_forward_kernel<T><<<grid_for(st.B * st.H), kThreads, 0, s>>>(
        st, static_cast<T*>(pre), static_cast<const T*>(xw), static_cast<const T*>(bias), static_cast<T*>(acts),
        static_cast<const T*>(h_prev), static_cast<const T*>(c_prev), static_cast<T*>(h_next), static_cast<T*>(c_next),
        static_cast<T*>(out));
  });
  check_launch(device, "lstm_forward (cell)");
}

void lstm_cell_backward(int device, Elem type, const LstmStep& st, const void* acts, const void* c_now,
                        const void* c_prev, const void* go, void* dh, void* dc, void* dgates, void* dxw) {
  if (st.B * st.H == 0) return;
  const cudaStream_t s = stream_of(device);
  floats(device, type, "lstm_backward", [&]<class T>() {
    cell_backward_kernel<T><<<grid_for(st.B * st.H), kThreads, 0, s>>>(
        st, static_cast<const T*>(acts), static_cast<const T*>(c_now), static_cast<const T*>(c_prev),
        static_cast<const T*>(go), static_cast<T*>(dh), static_cast<T*>(dc), static_cast<T*>(dgates),
        static_cast<T*>(dxw));
  });
  check_launch(device, "lstm_backward (cell)");
}

void lstm_take_recurrent(int device, Elem type, const LstmStep& st, const void* rec, void* dh) {
  if (st.B * st.H == 0) return;
  const cudaStream_t s = stream_of(device);
  floats(device, type, "lstm_backward", [&]<class T>() {
    take_recurrent_kernel<T><<<grid_for(st.B * st.H), kThreads, 0, s>>>(st, static_cast<const T*>(rec),
                                                                       static_cast<T*>(dh));
  });
  check_launch(device, "lstm_backward (recurrent)");
}

}  // namespace lintra::cuda
