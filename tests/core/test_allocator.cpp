// test_allocator.cpp — invariant: the caching CPU allocator returns 64-byte aligned blocks, reuses a
// freed block for any later request of the same size class instead of asking the OS again
// (os_allocations stays flat under repeated alloc/free), serves a request from a cached block of up to
// max_fit times its class (the smallest that fits; host memory 4, other devices 2) so that shapes
// varying from step to step stop reaching the OS, aligns blocks of 2 MiB or more to 2 MiB (huge
// pages), and counts the bytes in use and their peak exactly (requested bytes, back to the baseline
// once tensors are freed; cached bytes by the blocks' own classes).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

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

TEST(CoreAllocator, ALargerCachedBlockOfUpToFourTimesTheClassServes) {
  CpuAllocator& a = CpuAllocator::instance();
  a.release_cached();
  const size_t big = size_t(1) << 20;
  void* p = a.allocate(big);
  a.deallocate(p, big);
  const int64_t os_before = a.stats().os_allocations;
  void* q = a.allocate(big * 3 / 4);  // a smaller class, no block of its own: the 1 MiB block serves
  EXPECT_EQ(q, p);
  EXPECT_EQ(a.stats().os_allocations, os_before);
  a.deallocate(q, big * 3 / 4);  // back under the block's own class, counted at its own size
  EXPECT_EQ(a.stats().cached_bytes, int64_t(CpuAllocator::size_class(big)));
  void* r = a.allocate(big);  // and serves its own class again
  EXPECT_EQ(r, p);
  a.deallocate(r, big);
  void* t = a.allocate(big / 4);  // a quarter of the block: still served by it
  EXPECT_EQ(t, p);
  a.deallocate(t, big / 4);
  void* s = a.allocate(big / 5);  // under a quarter of the block: a block of its own
  EXPECT_NE(s, p);
  EXPECT_EQ(a.stats().os_allocations, os_before + 1);
  a.deallocate(s, big / 5);
  EXPECT_TRUE(a.fits(CpuAllocator::size_class(5000), CpuAllocator::size_class(5000)));
  EXPECT_FALSE(a.fits(CpuAllocator::size_class(5000), CpuAllocator::size_class(6000)));
  EXPECT_TRUE(a.fits(CpuAllocator::size_class(100000), CpuAllocator::size_class(40000)));
  EXPECT_FALSE(a.fits(CpuAllocator::size_class(100000), CpuAllocator::size_class(20000)));
}

// Other devices' allocators (CUDA's) keep best fit within twice the class.
TEST(CoreAllocator, TheFitRatioIsTheAllocatorsOwn) {
  class TwoTimes final : public CachingAllocator {
   public:
    TwoTimes() : CachingAllocator(Device::cpu, 1 << 20) {}

   protected:
    void* raw_allocate(size_t bytes) override { return std::aligned_alloc(64, bytes); }
    void raw_free(void* ptr) override { std::free(ptr); }
  } two;
  EXPECT_TRUE(two.fits(CpuAllocator::size_class(100000), CpuAllocator::size_class(60000)));
  EXPECT_FALSE(two.fits(CpuAllocator::size_class(100000), CpuAllocator::size_class(40000)));
}

// Blocks of a huge page or more start on a huge-page boundary (so the kernel can back them with 2 MiB
// pages after the allocator's madvise) and hold what is written to them; smaller ones keep 64 bytes.
TEST(CoreAllocator, LargeBlocksAreHugePageAligned) {
  CpuAllocator& a = CpuAllocator::instance();
  a.release_cached();
  for (size_t n : {CpuAllocator::kHugePage, CpuAllocator::kHugePage * 3 + 4096, size_t(40) << 20}) {
    auto* p = static_cast<unsigned char*>(a.allocate(n));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % CpuAllocator::kHugePage, 0u) << n;
    for (size_t i = 0; i < n; i += 4096) p[i] = static_cast<unsigned char>(i / 4096);
    p[n - 1] = 7;
    for (size_t i = 0; i < n; i += 4096) ASSERT_EQ(p[i], static_cast<unsigned char>(i / 4096)) << n;
    EXPECT_EQ(p[n - 1], 7);
    a.deallocate(p, n);
  }
  void* small = a.allocate(CpuAllocator::kHugePage / 2);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small) % CpuAllocator::kAlignment, 0u);
  a.deallocate(small, CpuAllocator::kHugePage / 2);
  a.release_cached();
}

TEST(CoreAllocator, TheSmallestFittingBlockIsTaken) {
  CpuAllocator& a = CpuAllocator::instance();
  a.release_cached();
  const size_t n = 600000;
  void* larger = a.allocate(n * 19 / 10);
  void* closer = a.allocate(n * 11 / 10);
  a.deallocate(larger, n * 19 / 10);
  a.deallocate(closer, n * 11 / 10);
  void* p = a.allocate(n);
  EXPECT_EQ(p, closer);
  a.deallocate(p, n);
}

// Host memory with a small cache limit, so that a test can fill the cache.
class SmallCacheAllocator final : public CachingAllocator {
 public:
  explicit SmallCacheAllocator(int64_t limit) : CachingAllocator(Device::cpu, limit) {}
  ~SmallCacheAllocator() override { release_cached(); }

 protected:
  void* raw_allocate(size_t bytes) override { return std::aligned_alloc(64, bytes); }
  void raw_free(void* ptr) override { std::free(ptr); }
};

// A training loop whose batch shapes change every step (speech: utterances of varying length, whose
// attention matrices grow with N²) reaches the OS only while the cache warms, then never — where one
// free list per exact class filled the cache with blocks of every size, and beyond its limit every
// block went back to the OS and every request of another size came fresh from it.
TEST(CoreAllocator, VaryingShapesStopReachingTheOs) {
  SmallCacheAllocator a(int64_t(4) << 20);  // room for four of the 1 MiB blocks below
  const std::vector<int64_t> lengths = {400, 310, 512, 455, 330, 500, 370, 430, 480, 300, 505, 390};
  auto step = [&](int64_t n) {  // a step's scores and probabilities, n × n floats each, live together
    const size_t bytes = size_t(n * n) * sizeof(float);
    void* scores = a.allocate(bytes);
    void* probs = a.allocate(bytes);
    a.deallocate(probs, bytes);
    a.deallocate(scores, bytes);
  };
  for (int64_t n : lengths) step(n);  // warm: every length once
  const int64_t os_before = a.stats().os_allocations;
  for (size_t round = 0; round < 5; ++round)
    for (size_t i = 0; i < lengths.size(); ++i) step(lengths[(i * 7 + round) % lengths.size()]);
  EXPECT_EQ(a.stats().os_allocations, os_before);
  EXPECT_LE(a.stats().cached_bytes, int64_t(4) << 20);
  EXPECT_EQ(a.stats().in_use_bytes, 0);
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
