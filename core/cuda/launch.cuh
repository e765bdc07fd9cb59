// cuda/launch.cuh — what every CUDA launcher of core/cuda/ shares: the device's stream made current, the
// grid for a grid-stride loop over n items, and the check after a launch (a CUDA error becomes a
// lintra::Error naming the launch and the device, cuda/runtime.h).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/cuda/runtime.h"

namespace lintra::cuda {

// Threads per block of the grid-stride kernels.
constexpr int kThreads = 256;

// `device` made current; its one stream (cuda/runtime.h).
inline cudaStream_t stream_of(int device) {
  set_current(device);
  return static_cast<cudaStream_t>(stream(device));
}

// Blocks of `threads` for n items of a grid-stride loop: at least 1, at most 65,535.
inline unsigned grid_for(int64_t n, int64_t threads = kThreads) {
  return unsigned(std::clamp<int64_t>((n + threads - 1) / threads, 1, 65535));
}

// Throws (cuda/runtime.h detail::fail) if a runtime call failed.
inline void check_call(cudaError_t err, int device, const char* what) {
  if (err != cudaSuccess) detail::fail(what, device, cudaGetErrorString(err), __FILE__, __LINE__);
}

// Throws (cuda/runtime.h detail::fail) if the last launch failed.
inline void check_launch(int device, const char* what) {
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) detail::fail(what, device, cudaGetErrorString(err), __FILE__, __LINE__);
}

}  // namespace lintra::cuda
