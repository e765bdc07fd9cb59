// cuda/runtime.cu — the device plumbing of cuda/runtime.h on the CUDA runtime API: the device count,
// one non-blocking stream per device, cudaMalloc/cudaFree for the caching allocator, and copies on
// that stream. No kernels live here; see cuda/runtime.h for the contract.
#include <cuda_runtime.h>

#include <mutex>
#include <vector>

#include "core/cuda/runtime.h"

namespace lintra::cuda {

namespace {

#define LINTRA_CUDA_CALL(device, expr)                                                      \
  do {                                                                                      \
    const cudaError_t lintra_err_ = (expr);                                                 \
    if (lintra_err_ != cudaSuccess) [[unlikely]]                                            \
      detail::fail(#expr, (device), cudaGetErrorString(lintra_err_), __FILE__, __LINE__);   \
  } while (0)

// Makes `device` current for the calling thread (the runtime API's calls act on the current one).
void use(int device) {
  check_device(device);
  LINTRA_CUDA_CALL(device, cudaSetDevice(device));
}

struct Streams {
  std::mutex mu;
  std::vector<cudaStream_t> by_device;
};

Streams& streams() {
  static Streams* s = new Streams();  // never destroyed: tensors may be freed during static destruction
  return *s;
}

}  // namespace

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // no driver or no device: not an error for the caller, and not sticky
    return 0;
  }
  return count;
}

void check_device(int device) {
  const int count = device_count();
  if (device < 0 || device >= count) detail::fail("check_device", device, count == 0 ? "no CUDA device is visible"
                                                                                      : "no such CUDA device",
                                                  __FILE__, __LINE__);
}

void set_current(int device) { use(device); }

void* stream(int device) {
  Streams& s = streams();
  std::lock_guard<std::mutex> lock(s.mu);
  if (size_t(device) >= s.by_device.size() || s.by_device[size_t(device)] == nullptr) {
    use(device);
    if (size_t(device) >= s.by_device.size()) s.by_device.resize(size_t(device) + 1, nullptr);
    LINTRA_CUDA_CALL(device, cudaStreamCreateWithFlags(&s.by_device[size_t(device)], cudaStreamNonBlocking));
  }
  return s.by_device[size_t(device)];
}

void synchronize(int device) {
  cudaStream_t st = static_cast<cudaStream_t>(stream(device));
  LINTRA_CUDA_CALL(device, cudaStreamSynchronize(st));
}

void* try_malloc(int device, size_t nbytes) {
  use(device);
  void* p = nullptr;
  const cudaError_t err = cudaMalloc(&p, nbytes);
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear it: the caller frees its cache and retries, or reports
    return nullptr;
  }
  LINTRA_CUDA_CALL(device, err);
  return p;
}

void free(int device, void* ptr) {
  if (ptr == nullptr) return;
  use(device);
  LINTRA_CUDA_CALL(device, cudaFree(ptr));
}

void memory_info(int device, size_t& free_bytes, size_t& total_bytes) {
  use(device);
  LINTRA_CUDA_CALL(device, cudaMemGetInfo(&free_bytes, &total_bytes));
}

namespace {

void copy(int device, void* dst, const void* src, size_t nbytes, cudaMemcpyKind kind) {
  if (nbytes == 0) return;
  cudaStream_t st = static_cast<cudaStream_t>(stream(device));
  use(device);
  LINTRA_CUDA_CALL(device, cudaMemcpyAsync(dst, src, nbytes, kind, st));
  LINTRA_CUDA_CALL(device, cudaStreamSynchronize(st));
}

}  // namespace

void copy_host_to_device(int device, void* dst, const void* src, size_t nbytes) {
  copy(device, dst, src, nbytes, cudaMemcpyHostToDevice);
}

void copy_device_to_host(int device, void* dst, const void* src, size_t nbytes) {
  copy(device, dst, src, nbytes, cudaMemcpyDeviceToHost);
}

void copy_device_to_device(int dst_device, void* dst, int src_device, const void* src, size_t nbytes) {
  if (nbytes == 0) return;
  if (dst_device == src_device) return copy(dst_device, dst, src, nbytes, cudaMemcpyDeviceToDevice);
  synchronize(src_device);  // the source's pending writes land before the peer copy reads them
  cudaStream_t st = static_cast<cudaStream_t>(stream(dst_device));
  use(dst_device);
  LINTRA_CUDA_CALL(dst_device, cudaMemcpyPeerAsync(dst, dst_device, src, src_device, nbytes, st));
  LINTRA_CUDA_CALL(dst_device, cudaStreamSynchronize(st));
}

}  // namespace lintra::cuda
