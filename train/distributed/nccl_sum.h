// nccl_sum.h — sums of GPU buffers over the ranks with NCCL (DESIGN.md §10), for when lintra trains
// on CUDA tensors. Built only when CMake finds MPI, the CUDA toolkit and NCCL (LINTRA_WITH_NCCL).
//
// The trainer's gradient averager (train/gradient_averager.h) sums a model's gradients with it when the
// model is on a GPU. Its tests (tests/train/distributed/test_nccl.cpp: 2 ranks on one GPU, raw buffers
// and gradient tensors) skip without a GPU; no GPU has run them yet. NCCL's ring order is fixed for a
// given set of GPUs but is not the rank order of Communicator::sum, so a CPU run and a GPU run of K ranks
// will not agree bitwise (every rank of one run gets the same result).
#pragma once

#include <cstdint>
#include <string>

#include "core/tensor.h"
#include "train/distributed/communicator.h"

namespace lintra::dist {

class NcclSum {
 public:
  // This process's GPU `device` as NCCL tells GPUs apart: the host name and the GPU's PCI bus id. NCCL
  // (2.5 and later) refuses two ranks on one GPU ("Duplicate GPU detected"), so ranks compare these
  // before making a communicator.
  static std::string gpu_identity(int device);

  // One NCCL communicator over the ranks of `host`, on CUDA device `device` of this process: rank 0's
  // ncclUniqueId is broadcast through `host` (MPI), then every rank joins (ncclCommInitRank).
  NcclSum(Communicator& host, int device);
  ~NcclSum();
  NcclSum(const NcclSum&) = delete;
  NcclSum& operator=(const NcclSum&) = delete;

  // In place, on the device: `count` floats at `device_values` become their sum over the ranks
  // (ncclAllReduce on `cuda_stream`, a cudaStream_t; null: the default stream), synchronised.
  void sum(float* device_values, int64_t count, void* cuda_stream = nullptr);
  // In place: a contiguous float32 tensor on this communicator's GPU becomes its sum over the ranks, on
  // the device's lintra stream (after the work queued there), synchronised.
  void sum(Tensor& values);

 private:
  void* comm_ = nullptr;  // ncclComm_t
  int device_ = 0;
};

}  // namespace lintra::dist
