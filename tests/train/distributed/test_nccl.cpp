// test_nccl.cpp — NcclSum (issue 16.3) on the ranks mpirun started (CTest runs it under `mpirun -np 2`,
// built only with MPI and NCCL): rank 0's NCCL unique id reaches every rank through MPI, and a sum of
// device buffers, raw or as a lintra tensor on cuda (what the trainer's averager sums), equals the sum of
// the ranks' values. Rank r uses GPU r mod (GPUs). NCCL refuses two ranks on one GPU, so with fewer
// GPUs than ranks on a host it skips (the trainer's averager then sums through the host:
// tests/app/test_distributed.cpp). Skips on every rank when a rank sees no GPU (the skip is agreed over
// MPI, so no rank waits in ncclCommInitRank for one that skipped).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "train/distributed/nccl_sum.h"
#include "train/distributed/world.h"

namespace lintra::dist {
namespace {

TEST(TrainDistributedNccl, SumsOfDeviceBuffersEqualTheSumsOfTheRanksValues) {
  Communicator& comm = world();
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess) gpus = 0;
  std::array<double, 1> none{gpus == 0 ? 1.0 : 0.0};
  comm.max(none);
  if (comm.size() < 2) GTEST_SKIP() << "run under mpirun -np 2 (or more)";
  if (none[0] > 0) GTEST_SKIP() << "a rank sees no CUDA GPU";
  const std::vector<std::string> gpus_of = comm.all_gather(NcclSum::gpu_identity(comm.rank() % gpus));
  for (size_t a = 0; a < gpus_of.size(); ++a)
    for (size_t b = a + 1; b < gpus_of.size(); ++b)
      if (gpus_of[a] == gpus_of[b]) GTEST_SKIP() << "ranks " << a << " and " << b << " share one GPU, which NCCL refuses";
  NcclSum nccl(comm, comm.rank() % gpus);
  const int64_t n = 1000003;  // not a multiple of the ranks
  std::vector<float> mine(static_cast<size_t>(n)), got(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) mine[size_t(i)] = float((i % 1000) * (comm.rank() + 1));
  float* device = nullptr;
  ASSERT_EQ(cudaMalloc(&device, size_t(n) * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(device, mine.data(), size_t(n) * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  nccl.sum(device, n);
  ASSERT_EQ(cudaMemcpy(got.data(), device, size_t(n) * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(device);
  const float factor = float(comm.size() * (comm.size() + 1) / 2);  // 1 + 2 + … + K: exact in float
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(got[size_t(i)], float(i % 1000) * factor) << "element " << i;
  // The same through a tensor on the GPU (the averager's call), on lintra's stream.
  Tensor t = Tensor::from_vector(mine, {n}).to(Device::cuda(comm.rank() % gpus));
  nccl.sum(t);
  const std::vector<float> summed = t.to(Device::cpu).to_vector<float>();
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(summed[size_t(i)], float(i % 1000) * factor) << "tensor element " << i;
}

}  // namespace
}  // namespace lintra::dist
