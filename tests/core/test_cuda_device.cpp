// test_cuda_device.cpp — the CUDA device plumbing (core/cuda/): device count, the caching allocator
// and copies between host, strict and CUDA memory. Every test skips (GTEST_SKIP) without a visible GPU,
// and in a build without CUDA (LINTRA_WITH_CUDA unset), where cuda_available() is false.
// Invariants: a GPU tensor round-trips through to() bit for bit (from the CPU, from the strict device,
// between views); the caching allocator serves a steady loop of equal requests without the driver
// (os_allocations flat) and counts bytes in use exactly; factories and clones run on the GPU.
#include <gtest/gtest.h>

#include "core/allocator.h"
#include "core/kernels.h"
#include "core/rng.h"
#include "tests/core/core_test_util.h"

namespace lintra {
namespace {

using testing::error_of;

TEST(CoreCudaDevice, CountsDevices) {
  LINTRA_SKIP_WITHOUT_GPU();
  EXPECT_GE(cuda_device_count(), 1);
  EXPECT_HAS(error_of([] { Tensor::empty({2}, DType::f32, Device::cuda(cuda_device_count())); }), "cuda:");
}

TEST(CoreCudaDevice, CopiesRoundTripExactly) {
  LINTRA_SKIP_WITHOUT_GPU();
  Generator gen(5);
  const Tensor x = Tensor::normal({17, 33}, gen, 0, 1, DType::f32);
  const Tensor g = x.to(Device::cuda(0));
  EXPECT_EQ(g.device(), Device::cuda(0));
  EXPECT_EQ(g.cpu().to_vector<float>(), x.to_vector<float>());
  const Tensor via_strict = x.to(Device::strict()).to(Device::cuda(0)).to(Device::strict());
  EXPECT_EQ(via_strict.cpu().to_vector<float>(), x.to_vector<float>());
  EXPECT_HAS(error_of([&] { g.to_vector<float>(); }), "cuda:0");  // no host access to GPU memory
  Tensor back = Tensor::zeros({17, 33});
  back.copy_(g);
  EXPECT_EQ(back.to_vector<float>(), x.to_vector<float>());
  const Tensor empty = Tensor::empty({0, 4}, DType::f64, Device::cuda(0));
  EXPECT_EQ(empty.cpu().numel(), 0);
}

TEST(CoreCudaDevice, CachingAllocatorReusesBlocks) {
  LINTRA_SKIP_WITHOUT_GPU();
  Allocator& a = allocator_for(Device::cuda(0));
  EXPECT_EQ(a.device(), Device::cuda(0));
  const int64_t base = a.stats().in_use_bytes;
  { Tensor warm = Tensor::empty({1 << 20}, DType::f32, Device::cuda(0)); }
  const int64_t os = a.stats().os_allocations;
  for (int i = 0; i < 50; ++i) {
    Tensor t = Tensor::empty({1 << 20}, DType::f32, Device::cuda(0));
    EXPECT_EQ(a.stats().in_use_bytes, base + (4 << 20));
  }
  EXPECT_EQ(a.stats().os_allocations, os) << "a steady loop must not reach cudaMalloc";
  EXPECT_EQ(a.stats().in_use_bytes, base);
  a.release_cached();
  EXPECT_EQ(a.stats().cached_bytes, 0);
}

// zeros (fill) and clone (copy) run on the GPU's kernel table (core/cuda/kernel_table.cpp).
TEST(CoreCudaDevice, FactoriesAndClonesRunOnTheGpu) {
  LINTRA_SKIP_WITHOUT_GPU();
  EXPECT_EQ(Tensor::zeros({3}, DType::f32, Device::cuda(0)).cpu().to_vector<float>(), std::vector<float>(3, 0.0f));
  const Tensor x = Tensor::from_vector(std::vector<double>{1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(x.to(Device::cuda(0)).transpose(0, 1).contiguous().cpu().to_vector<double>(),
            (std::vector<double>{1, 3, 2, 4}));
}

}  // namespace
}  // namespace lintra
