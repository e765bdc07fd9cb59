// test_allocator.cpp — invariant: the caching CPU allocator returns 64-byte aligned blocks, reuses a
// freed block for any later request of the same size class instead of asking the OS again
// (os_allocations stays flat under repeated alloc/free), and counts the bytes in use and their
// peak exactly (requested bytes, back to the baseline once tensors are freed).
#include <gtest/gtest.h>

#include <cstdint>

#include "core/allocator.h"
#include "core/tensor.h"

namespace lintra {
namespace {

const std::vector<size_t> kSizes = {0, 1, 3, 17, 63, 64, 65, 1000, 4096, 4097, 5000, 100000, (1 << 20) + 7};

TEST(CoreAllocator, BlocksAre64ByteAligned) {
  CpuAllocator& a = CpuAllocator::instance();
  for (size_t n : kSizes) {
    void* p = a.allocate(n);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % CpuAllocator::kAlignment, 0u) << n;
    a.deallocate(p, n);
  }
  for (int64_t n : {1, 7, 13, 1001, 33333}) {
    Tensor t = Tensor::empty({n}, DType::f32);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % 64, 0u) << n;
  }
}

TEST(CoreAllocator, SizeClassesCoverTheRequest) {
  for (size_t n : kSizes) {
    size_t c = CpuAllocator::size_class(n);
    EXPECT_GE(c, n);
    EXPECT_EQ(c % CpuAllocator::kAlignment, 0u) << n;
    if (n > 4096) {
      EXPECT_LE(c, n + n / 8) << n;  // 8 classes per power of two: ≤ 12.5% waste
    }
  }
  EXPECT_EQ(CpuAllocator::size_class(4097), CpuAllocator::size_class(4200));
}

TEST(CoreAllocator, FreedBlocksAreReused) {
  CpuAllocator& a = CpuAllocator::instance();
  for (size_t n : {size_t(100), size_t(5000), size_t(3) << 20}) {
    a.deallocate(a.allocate(n), n);  // warm the size class
    const int64_t os_before = a.stats().os_allocations;
    for (int i = 0; i < 100; ++i) {
      void* p = a.allocate(n);
      a.deallocate(p, n);
    }
    EXPECT_EQ(a.stats().os_allocations, os_before) << n;
  }
  // Another request of the same class gets the block just freed.
  void* p = a.allocate(4097);
  a.deallocate(p, 4097);
  void* q = a.allocate(4200);
  EXPECT_EQ(p, q);
  a.deallocate(q, 4200);
  // Tensors go through the same path.
  { Tensor warm = Tensor::empty({1000, 17}); }
  const int64_t os_before = a.stats().os_allocations;
  for (int i = 0; i < 50; ++i) Tensor t = Tensor::zeros({1000, 17});
  EXPECT_EQ(a.stats().os_allocations, os_before);
}

TEST(CoreAllocator, InUseAndPeakTracking) {
  CpuAllocator& a = CpuAllocator::instance();
  const int64_t base = a.stats().in_use_bytes;
  a.reset_peak();
  EXPECT_EQ(a.stats().peak_bytes, base);
  {
    Tensor x = Tensor::empty({1 << 18}, DType::f32);  // 1 MiB
    EXPECT_EQ(a.stats().in_use_bytes, base + (1 << 20));
    {
      Tensor y = Tensor::empty({1 << 18}, DType::f64);  // 2 MiB
      EXPECT_EQ(a.stats().in_use_bytes, base + (3 << 20));
      Tensor view = y.transpose(0, 0).slice(0, 0, 10);  // views allocate nothing
      EXPECT_EQ(a.stats().in_use_bytes, base + (3 << 20));
    }
    EXPECT_EQ(a.stats().in_use_bytes, base + (1 << 20));
  }
  EXPECT_EQ(a.stats().in_use_bytes, base);
  EXPECT_EQ(a.stats().peak_bytes, base + (3 << 20));
  a.reset_peak();
  EXPECT_EQ(a.stats().peak_bytes, base);
}

TEST(CoreAllocator, ReleaseCachedEmptiesTheFreeLists) {
  CpuAllocator& a = CpuAllocator::instance();
  { Tensor t = Tensor::empty({12345}); }
  EXPECT_GT(a.stats().cached_bytes, 0);
  a.release_cached();
  EXPECT_EQ(a.stats().cached_bytes, 0);
  const int64_t os_before = a.stats().os_allocations;
  { Tensor t = Tensor::empty({12345}); }  // the cache is empty: a new OS block
  EXPECT_EQ(a.stats().os_allocations, os_before + 1);
}

}  // namespace
}  // namespace lintra
