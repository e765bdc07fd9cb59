// nccl_sum.cpp — compiled only with NCCL (see nccl_sum.h: never run on a GPU so far).
#include "train/distributed/nccl_sum.h"

#include <cuda_runtime.h>
#include <nccl.h>

#include <unistd.h>

#include <array>
#include <cstring>
#include <string>

#include "core/cuda/runtime.h"
#include "core/error.h"
#include "core/kernel_access.h"

namespace lintra::dist {

namespace {

void check(ncclResult_t r, const char* call) {
  LINTRA_CHECK(r == ncclSuccess, "{} failed: {}", call, ncclGetErrorString(r));
}

void check(cudaError_t e, const char* call) {
  LINTRA_CHECK(e == cudaSuccess, "{} failed: {}", call, cudaGetErrorString(e));
}

}  // namespace

std::string NcclSum::gpu_identity(int device) {
  std::array<char, 256> host{};
  gethostname(host.data(), host.size() - 1);
  std::array<char, 64> bus{};
  check(cudaDeviceGetPCIBusId(bus.data(), int(bus.size()), device), "cudaDeviceGetPCIBusId");
  return std::string(host.data()) + "/" + bus.data();
}

NcclSum::NcclSum(Communicator& host, int device) : device_(device) {
  check(cudaSetDevice(device), "cudaSetDevice");
  ncclUniqueId id;
  std::memset(&id, 0, sizeof id);
  if (host.is_root()) check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  std::string bytes(reinterpret_cast<const char*>(&id), sizeof id);
  host.broadcast(bytes, 0);
  LINTRA_CHECK(bytes.size() == sizeof id, "NCCL: rank 0 sent a unique id of {} bytes, expected {}", bytes.size(),
               sizeof id);
  std::memcpy(&id, bytes.data(), sizeof id);
  ncclComm_t comm = nullptr;
  check(ncclCommInitRank(&comm, host.size(), id, host.rank()), "ncclCommInitRank");
  comm_ = comm;
}

NcclSum::~NcclSum() {
  if (comm_ != nullptr) ncclCommDestroy(static_cast<ncclComm_t>(comm_));
}

void NcclSum::sum(float* device_values, int64_t count, void* cuda_stream) {
  auto stream = static_cast<cudaStream_t>(cuda_stream);
  check(ncclAllReduce(device_values, device_values, size_t(count), ncclFloat, ncclSum, static_cast<ncclComm_t>(comm_),
                      stream),
        "ncclAllReduce");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
}

// The one collective that reads device memory without a copy: like a kernel, it takes the tensor's
// device pointer (kernels::KernelAccess) and runs on the device's stream.
void NcclSum::sum(Tensor& values) {
  LINTRA_CHECK(values.device() == Device::cuda(device_) && values.dtype() == DType::f32 && values.is_contiguous(),
               "NCCL sum: expected a contiguous float32 tensor on cuda:{}, got {} {} on {}", device_, values.dtype(),
               shape_str(values.shape()), values.device());
  if (values.numel() == 0) return;
  lintra::cuda::set_current(device_);
  sum(static_cast<float*>(kernels::KernelAccess::data(values)), values.numel(), lintra::cuda::stream(device_));
}

}  // namespace lintra::dist
