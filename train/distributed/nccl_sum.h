// nccl_sum.h — sums of GPU buffers over the ranks with NCCL (DESIGN.md §10), for when lintra trains
// on CUDA tensors. Built only when CMake finds MPI, the CUDA toolkit and NCCL (LINTRA_WITH_NCCL).
//
// Status (issue 16.3): an interface and its calls, compiled and linked; its test
// (tests/train/distributed/test_nccl.cpp, 2 ranks on one GPU) skips without a GPU and has not yet run
// on one. The trainer does not use it: lintra's training tensors live on the CPU so far. Left: an
// averager that sums the gradients' device buffers with it when the model is on a GPU. NCCL's ring order is fixed for a given set of GPUs but is not the rank order of
// Communicator::sum, so a CPU run and a GPU run of K ranks will not agree bitwise.
#pragma once

#include <cstdint>

#include "train/distributed/communicator.h"

namespace lintra::dist {

class NcclSum {
 public:
  // One NCCL communicator over the ranks of `host`, on CUDA device `device` of this process: rank 0's
  // ncclUniqueId is broadcast through `host` (MPI), then every rank joins (ncclCommInitRank).
  NcclSum(Communicator& host, int device);
  ~NcclSum();
  NcclSum(const NcclSum&) = delete;
  NcclSum& operator=(const NcclSum&) = delete;

  // In place, on the device: `count` floats at `device_values` become their sum over the ranks
  // (ncclAllReduce on `cuda_stream`, a cudaStream_t; null: the default stream), synchronised.
  void sum(float* device_values, int64_t count, void* cuda_stream = nullptr);

 private:
  void* comm_ = nullptr;  // ncclComm_t
};

}  // namespace lintra::dist
