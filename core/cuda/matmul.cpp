// cuda/matmul.cpp — matmul on CUDA through cuBLAS (kernels.h: out (…, M, N) = a (…, M, K) · b (…, K, N),
// or out += a·b when accumulating (cuBLAS's beta = 1); broadcast batch dims, any strides; out
// contiguous). Host code (g++): cuBLAS is a C API.
//
// Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: one gemm(opB, opA, N, M, K) with C's leading dim N.
// An operand whose rows are unit-stride is passed as is (op N, ld = its row stride); one whose columns
// are (a transposed view) with op T; any other is first copied contiguous (the CUDA copy kernel).
// When every batch element of a and b lies at i·stride (contiguous batches, or broadcast: stride 0),
// the whole batch is one cublas{S,D}gemmStridedBatched; otherwise one gemm per batch element.
// float32 runs in cuBLAS's default math (no TF32), float64 in double. Cost: 2·batch·M·N·K flops.
#include <cublas_v2.h>

#include <algorithm>
#include <mutex>
#include <type_traits>
#include <vector>

#include "core/cuda/runtime.h"
#include "core/cuda/table.h"
#include "core/kernel_access.h"

namespace lintra::kernels::cuda_backend {

namespace {

void check(cublasStatus_t status, const char* call, int device) {
  LINTRA_CHECK(status == CUBLAS_STATUS_SUCCESS, "cuda:{}: {} failed: {} ({})", device, call,
               cublasGetStatusName(status), cublasGetStatusString(status));
}

// One cuBLAS handle per device, bound to the device's stream; made on first use, never destroyed.
cublasHandle_t handle(int device) {
  static std::mutex mu;
  static std::vector<cublasHandle_t> handles;
  std::lock_guard<std::mutex> lock(mu);
  if (size_t(device) >= handles.size()) handles.resize(size_t(device) + 1, nullptr);
  cublasHandle_t& h = handles[size_t(device)];
  lintra::cuda::set_current(device);
  if (h == nullptr) {
    check(cublasCreate(&h), "cublasCreate", device);
    check(cublasSetStream(h, static_cast<cudaStream_t>(lintra::cuda::stream(device))), "cublasSetStream", device);
  }
  return h;
}

// One operand as cuBLAS sees it: op, leading dim, and the element offset of each batch element.
struct GemmOperand {
  Tensor t;  // the tensor read (maybe a contiguous copy)
  cublasOperation_t op = CUBLAS_OP_N;
  int64_t ld = 0;
  std::vector<int64_t> batch_offsets;
};

// x (…, R, C) as a column-major operand of shape C×R (op N, rows unit-stride) or R×C (op T).
GemmOperand gemm_operand(const Tensor& x, const Shape& batch) {
  const int64_t last = x.dim() - 1;
  const int64_t R = x.size(last - 1), C = x.size(last);
  GemmOperand g;
  g.t = x;
  const int64_t sr = x.stride(last - 1), sc = x.stride(last);
  if ((sc == 1 || C == 1) && sr >= std::max<int64_t>(C, 1)) {
    g.op = CUBLAS_OP_N, g.ld = sr;
  } else if ((sr == 1 || R == 1) && sc >= std::max<int64_t>(R, 1)) {
    g.op = CUBLAS_OP_T, g.ld = sc;
  } else {
    g.t = x.contiguous();
    g.op = CUBLAS_OP_N, g.ld = std::max<int64_t>(C, 1);
  }
  // Batch strides of x broadcast to `batch` (x's batch dims are right-aligned to it).
  const int64_t nd = int64_t(batch.size()), xd = g.t.dim() - 2;
  std::vector<int64_t> st(size_t(nd), 0);
  for (int64_t d = 0; d < xd; ++d)
    if (g.t.size(d) != 1) st[size_t(nd - xd + d)] = g.t.stride(d);
  int64_t count = 1;
  for (int64_t s : batch) count *= s;
  g.batch_offsets.assign(size_t(count), 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t rest = i, off = 0;
    for (int64_t d = nd - 1; d >= 0; --d) {
      off += (rest % batch[size_t(d)]) * st[size_t(d)];
      rest /= batch[size_t(d)];
    }
    g.batch_offsets[size_t(i)] = off;
  }
  return g;
}

// The one stride s with offset(i) = i·s for every batch element, or −1 when there is none.
int64_t uniform_stride(const std::vector<int64_t>& offsets) {
  const int64_t s = offsets.size() > 1 ? offsets[1] - offsets[0] : 0;
  for (size_t i = 0; i < offsets.size(); ++i)
    if (offsets[i] != int64_t(i) * s) return -1;
  return s;
}

template <class T> void gemm_typed(int device, const GemmOperand& A, const GemmOperand& B, Tensor& out, int64_t M,
                                   int64_t N, int64_t K, bool accumulate) {
  cublasHandle_t h = handle(device);
  const T one = 1, beta = accumulate ? 1 : 0;
  const T* a = static_cast<const T*>(KernelAccess::data(A.t));
  const T* b = static_cast<const T*>(KernelAccess::data(B.t));
  T* c = static_cast<T*>(KernelAccess::data(out));
  const int64_t count = int64_t(A.batch_offsets.size());
  const int64_t sa = uniform_stride(A.batch_offsets), sb = uniform_stride(B.batch_offsets);
  auto call = [&](const T* bp, const T* ap, T* cp, int64_t batch, int64_t stride_b, int64_t stride_a) {
    if constexpr (std::is_same_v<T, float>) {
      check(cublasSgemmStridedBatched(h, B.op, A.op, int(N), int(M), int(K), &one, bp, int(B.ld), stride_b, ap,
                                      int(A.ld), stride_a, &beta, cp, int(N), M * N, int(batch)),
            "cublasSgemmStridedBatched", device);
    } else {
      check(cublasDgemmStridedBatched(h, B.op, A.op, int(N), int(M), int(K), &one, bp, int(B.ld), stride_b, ap,
                                      int(A.ld), stride_a, &beta, cp, int(N), M * N, int(batch)),
            "cublasDgemmStridedBatched", device);
    }
  };
  if (sa >= 0 && sb >= 0) return call(b, a, c, count, sb, sa);
  for (int64_t i = 0; i < count; ++i)
    call(b + B.batch_offsets[size_t(i)], a + A.batch_offsets[size_t(i)], c + i * M * N, 1, 0, 0);
}

}  // namespace

void matmul(const Tensor& a, const Tensor& b, Tensor& out, bool accumulate) {
  const int device = out.device().index();
  const int64_t M = out.size(out.dim() - 2), N = out.size(out.dim() - 1), K = a.size(a.dim() - 1);
  if (out.numel() == 0) return;
  if (K == 0) {  // an empty sum
    if (!accumulate) table.fill(out, 0.0);
    return;
  }
  for (int64_t v : {M, N, K})
    LINTRA_CHECK(v < (int64_t(1) << 31), "matmul on cuda:{}: a dimension of {} is beyond cuBLAS's int", device, v);
  const Shape batch(out.shape().begin(), out.shape().end() - 2);
  const GemmOperand A = gemm_operand(a, batch), B = gemm_operand(b, batch);
  for (int64_t ld : {A.ld, B.ld})  // a view's row stride, passed to cuBLAS as an int too
    LINTRA_CHECK(ld < (int64_t(1) << 31), "matmul on cuda:{}: a leading dimension of {} is beyond cuBLAS's int",
                 device, ld);
  if (out.dtype() == DType::f32) return gemm_typed<float>(device, A, B, out, M, N, K, accumulate);
  LINTRA_CHECK(out.dtype() == DType::f64, "matmul on cuda:{}: float32 or float64, got {}", device, out.dtype());
  gemm_typed<double>(device, A, B, out, M, N, K, accumulate);
}

}  // namespace lintra::kernels::cuda_backend
