// cuda/ctc.cu — the CTC kernel of cuda/ctc.h.
#include <cuda_runtime.h>

#include <algorithm>

#include "core/cuda/ctc.h"
#include "core/cuda/launch.cuh"
#include "core/cuda/runtime.h"

namespace lintra::cuda {

namespace {

__device__ inline double lse2(double a, double b) {
  if (a == -INFINITY) return b;
  if (b == -INFINITY) return a;
  const double m = fmax(a, b);
  return m + log(exp(a - m) + exp(b - m));
}

struct Extended {  // l' = (0, l_1, 0, …, l_S, 0)
  const int64_t* label;
  int64_t L;
  __device__ int64_t at(int64_t s) const { return s % 2 == 0 ? 0 : label[s / 2]; }
  __device__ bool can_skip(int64_t s) const { return s >= 2 && at(s) != 0 && at(s) != at(s - 2); }
};

// The CPU's check_target: labels in [1, C), enough frames for the repeats.
__device__ void check_target(const int64_t* label, int64_t Sb, int64_t Tb, int64_t C, int64_t* status) {
  int64_t repeats = 0;
  for (int64_t i = 0; i < Sb; ++i) {
    if (label[i] < 1 || label[i] >= C) {
      status[0] = 1, status[1] = i, status[2] = label[i];
      return;
    }
    if (i > 0 && label[i] == label[i - 1]) ++repeats;
  }
  if (Tb < Sb + repeats) status[0] = 2, status[1] = repeats;
}

__device__ void forward_alpha(const double* z, int64_t C, int64_t Tb, const Extended& e, double* alpha) {
  for (int64_t s = threadIdx.x; s < e.L; s += blockDim.x)
    alpha[s] = s == 0 ? z[0] : (s == 1 ? z[e.at(1)] : -INFINITY);
  __syncthreads();
  for (int64_t t = 1; t < Tb; ++t) {
    const double* a0 = alpha + (t - 1) * e.L;
    double* a1 = alpha + t * e.L;
    for (int64_t s = threadIdx.x; s < e.L; s += blockDim.x) {
      double v = a0[s];
      if (s >= 1) v = lse2(v, a0[s - 1]);
      if (e.can_skip(s)) v = lse2(v, a0[s - 2]);
      a1[s] = v == -INFINITY ? -INFINITY : v + z[t * C + e.at(s)];
    }
    __syncthreads();
  }
}

__device__ void backward_beta(const double* z, int64_t C, int64_t Tb, const Extended& e, double* beta) {
  const int64_t L = e.L;
  for (int64_t s = threadIdx.x; s < L; s += blockDim.x) beta[(Tb - 1) * L + s] = s >= L - 2 ? 0.0 : -INFINITY;
  __syncthreads();
  for (int64_t t = Tb - 2; t >= 0; --t) {
    const double* b1 = beta + (t + 1) * L;
    double* b0 = beta + t * L;
    const double* zn = z + (t + 1) * C;
    for (int64_t s = threadIdx.x; s < L; s += blockDim.x) {
      double v = b1[s] + zn[e.at(s)];
      if (s + 1 < L) v = lse2(v, b1[s + 1] + zn[e.at(s + 1)]);
      if (s + 2 < L && e.can_skip(s + 2)) v = lse2(v, b1[s + 2] + zn[e.at(s + 2)]);
      b0[s] = v;
    }
    __syncthreads();
  }
}

__global__ void ctc_kernel(const double* z_all, const int64_t* targets, const int64_t* in_len, const int64_t* tg_len,
                           int64_t T, int64_t C, int64_t S, double* nll, double* grad_all, int64_t* status_all,
                           double* scratch) {
  __shared__ int64_t st[3];
  __shared__ double logp;
  const int64_t b = blockIdx.x, Tb = in_len[b], L = 2 * tg_len[b] + 1;
  const double* z = z_all + b * T * C;
  double* grad = grad_all + b * T * C;
  for (int64_t i = threadIdx.x; i < T * C; i += blockDim.x) grad[i] = 0.0;
  if (threadIdx.x == 0) {
    st[0] = st[1] = st[2] = 0;
    check_target(targets + b * S, tg_len[b], Tb, C, st);
    nll[b] = 0.0;
  }
  __syncthreads();
  int64_t* status = status_all + 3 * b;
  if (st[0] != 0) {
    if (threadIdx.x < 3) status[threadIdx.x] = st[threadIdx.x];
    return;
  }
  const Extended e{targets + b * S, L};
  double* alpha = scratch + b * 2 * T * (2 * S + 1);
  double* beta = alpha + T * (2 * S + 1);
  forward_alpha(z, C, Tb, e, alpha);
  backward_beta(z, C, Tb, e, beta);
  if (threadIdx.x == 0) {
    const double* al = alpha + (Tb - 1) * L;
    logp = L > 1 ? lse2(al[L - 1], al[L - 2]) : al[L - 1];
  }
  __syncthreads();
  for (int64_t t = threadIdx.x; t < Tb; t += blockDim.x)
    for (int64_t s = 0; s < L; ++s) {
      const double v = alpha[t * L + s] + beta[t * L + s];
      if (v != -INFINITY) grad[t * C + e.at(s)] -= exp(v - logp);
    }
  if (threadIdx.x == 0) {
    nll[b] = -logp;
    status[0] = isfinite(-logp) ? 0 : 3;
    status[1] = status[2] = 0;
  }
}

}  // namespace

void ctc_loss(int device, const double* z, const int64_t* targets, const int64_t* input_lengths,
              const int64_t* target_lengths, int64_t B, int64_t T, int64_t C, int64_t S, double* nll, double* grad,
              int64_t* status, double* scratch) {
  if (B == 0) return;
  const cudaStream_t s = stream_of(device);
  ctc_kernel<<<unsigned(B), kThreads, 0, s>>>(z, targets, input_lengths, target_lengths, T, C, S, nll, grad, status,
                                              scratch);
  check_launch(device, "ctc_loss");
}

}  // namespace lintra::cuda
