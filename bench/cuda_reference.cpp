#include "bench/cuda_reference.h"

#include "core/error.h"

#ifdef LINTRA_WITH_CUDA
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <random>
#include <vector>
#endif

namespace lintra::bench {

#ifdef LINTRA_WITH_CUDA

namespace {

void check(cudaError_t e, const char* call) {
  LINTRA_CHECK(e == cudaSuccess, "bench (direct cuBLAS): {} failed: {}", call, cudaGetErrorString(e));
}
void check(cublasStatus_t s, const char* call) {
  LINTRA_CHECK(s == CUBLAS_STATUS_SUCCESS, "bench (direct cuBLAS): {} failed: {}", call, cublasGetStatusString(s));
}

}  // namespace

struct DirectCublas::State {
  int device = 0;
  int64_t batch = 1, M = 0, K = 0, N = 0;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  cudaStream_t stream = nullptr;
  cublasHandle_t handle = nullptr;
};

DirectCublas::DirectCublas(int device, int64_t batch, int64_t M, int64_t K, int64_t N) : state_(new State) {
  State& s = *state_;
  s.device = device, s.batch = batch, s.M = M, s.K = K, s.N = N;
  check(cudaSetDevice(device), "cudaSetDevice");
  const size_t na = size_t(batch * M * K), nb = size_t(batch * K * N), nc = size_t(batch * M * N);
  check(cudaMalloc(reinterpret_cast<void**>(&s.a), na * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(reinterpret_cast<void**>(&s.b), nb * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(reinterpret_cast<void**>(&s.c), nc * sizeof(float)), "cudaMalloc");
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> host(std::max(na, nb));
  for (float& x : host) x = u(rng);
  check(cudaMemcpy(s.a, host.data(), na * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemcpy(s.b, host.data(), nb * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  check(cublasCreate(&s.handle), "cublasCreate");
  check(cublasSetStream(s.handle, s.stream), "cublasSetStream");
}

DirectCublas::~DirectCublas() {
  State& s = *state_;
  cudaSetDevice(s.device);
  if (s.handle) cublasDestroy(s.handle);
  if (s.stream) cudaStreamDestroy(s.stream);
  cudaFree(s.a);
  cudaFree(s.b);
  cudaFree(s.c);
}

void DirectCublas::run(int calls) const {
  const State& s = *state_;
  check(cudaSetDevice(s.device), "cudaSetDevice");
  const float one = 1.0f, zero = 0.0f;
  // Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: cuBLAS gets B first, with the leading dimensions of
  // the row-major operands.
  for (int i = 0; i < calls; ++i) {
    if (s.batch == 1) {
      check(cublasSgemm(s.handle, CUBLAS_OP_N, CUBLAS_OP_N, int(s.N), int(s.M), int(s.K), &one, s.b, int(s.N), s.a,
                        int(s.K), &zero, s.c, int(s.N)),
            "cublasSgemm");
    } else {
      check(cublasSgemmStridedBatched(s.handle, CUBLAS_OP_N, CUBLAS_OP_N, int(s.N), int(s.M), int(s.K), &one, s.b,
                                      int(s.N), s.K * s.N, s.a, int(s.K), s.M * s.K, &zero, s.c, int(s.N), s.M * s.N,
                                      int(s.batch)),
            "cublasSgemmStridedBatched");
    }
  }
  check(cudaStreamSynchronize(s.stream), "cudaStreamSynchronize");
}

#else

struct DirectCublas::State {
  int64_t batch = 1, M = 0, K = 0, N = 0;
};

DirectCublas::DirectCublas(int, int64_t, int64_t, int64_t, int64_t) {
  LINTRA_FAIL("bench: the direct cuBLAS yardstick needs a build with CUDA (this one has none: -DLINTRA_CUDA=OFF "
              "or no toolkit found)");
}
DirectCublas::~DirectCublas() = default;
void DirectCublas::run(int) const {}

#endif

double DirectCublas::flops_per_call() const {
  const State& s = *state_;
  return 2.0 * double(s.batch) * double(s.M) * double(s.K) * double(s.N);
}

}  // namespace lintra::bench
