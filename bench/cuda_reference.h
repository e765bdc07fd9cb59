// cuda_reference.h — the yardstick of the GPU benchmarks (`lintra bench kernels|train --device cuda`):
// cuBLAS called directly, on device buffers and a stream and handle of its own, with nothing of lintra
// between the timer and the library (as cblas_sgemm is on the CPU). Float32, the default math mode (no
// TF32), row-major C = A·B, as lintra's matmul computes it. Each run() queues `calls` products and waits
// for them, so that one synchronisation (tens of microseconds) does not dominate a product that takes
// as long at the model's shapes on an H100.
//
// In a build without CUDA (LINTRA_WITH_CUDA unset) the constructor throws naming the build.
#pragma once

#include <cstdint>
#include <memory>

namespace lintra::bench {

class DirectCublas {
 public:
  // batch products of (M × K)·(K × N) (strided batched when batch > 1) on cuda:`device`; the operands
  // hold uniform values in [-1, 1).
  DirectCublas(int device, int64_t batch, int64_t M, int64_t K, int64_t N);
  ~DirectCublas();
  DirectCublas(const DirectCublas&) = delete;
  DirectCublas& operator=(const DirectCublas&) = delete;

  // Queues `calls` products and waits for them.
  void run(int calls) const;
  double flops_per_call() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace lintra::bench
