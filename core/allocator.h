// allocator.h — one caching allocator per device (DESIGN.md §3).
//
// Returning large blocks to the OS (or to the driver) every step costs heavy page-fault time on
// these machines (DESIGN.md §2.1; cudaMalloc/cudaFree synchronise the GPU), so freed blocks are kept
// in free lists and reused. Sizes are rounded up to a size class (multiples of 64 bytes below
// 4 KiB, then 8 classes per power of two). A request takes the smallest cached block of its class or
// of a larger one up to max_fit times its class (best fit; the allocator remembers each live block's
// class): with shapes that change from step to step (speech batches of varying length, whose attention
// matrices grow with N²) an exact-class cache kept missing and every miss was fresh pages from the OS
// — half of a softmax speech step in page faults on a Zen 5 guest (experiments/kernels/README.md,
// session 19). Host memory uses max_fit 4: against 2, the softmax speech run of the kernels README
// (session 22) keeps 6.1 GB resident instead of 8.5 GB at the same speed, since fewer stale classes
// fill the cache; CUDA keeps 2, its memory being scarcer than its page faults are dear. A block is
// reused only by a request on the stream it was freed on (CachingAllocator::stream()): work on one
// stream runs in order, so the new owner's kernels cannot start before the old owner's finished.
// The host devices have a single stream (0); CUDA has one stream per device today (cuda/runtime.h).
//
//   cpu       HostAllocator::instance() (CpuAllocator): 64-byte aligned host memory; blocks of 2 MiB or
//             more aligned to 2 MiB and advised as transparent huge pages (one page fault per 2 MiB)
//   strict:N  a HostAllocator instance of its own per index: host memory, separate statistics
//   cuda:N    CudaAllocator (core/cuda/allocator.cpp, builds with LINTRA_WITH_CUDA)
//
// Every allocator counts bytes in use and their peak, which the attention benchmark reports as
// "peak memory per sample" (the CPU analogue of torch.cuda.max_memory_allocated).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/device.h"

namespace lintra {

struct AllocatorStats {
  int64_t in_use_bytes = 0;    // requested bytes of live tensors' storage
  int64_t peak_bytes = 0;      // maximum of in_use_bytes since the last reset_peak()
  int64_t cached_bytes = 0;    // bytes held in free lists
  int64_t os_allocations = 0;  // number of blocks obtained from the OS (or the CUDA driver)
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual Device device() const = 0;
  virtual void* allocate(size_t nbytes) = 0;
  virtual void deallocate(void* ptr, size_t nbytes) = 0;
  virtual AllocatorStats stats() const = 0;
  virtual void reset_peak() = 0;
  virtual void release_cached() = 0;  // gives every cached block back
};

// The allocator of a device; throws for a CUDA device in a build without CUDA or beyond the visible GPUs.
Allocator& allocator_for(Device device);

// Size classes, per-stream free lists and statistics; a subclass supplies the raw blocks.
class CachingAllocator : public Allocator {
 public:
  // max_fit: a cached block serves requests down to 1 / max_fit of its class.
  CachingAllocator(Device device, int64_t cache_limit, size_t max_fit = 2)
      : device_(device), cache_limit_(cache_limit), max_fit_(max_fit) {}
  Device device() const override { return device_; }
  void* allocate(size_t nbytes) override;
  void deallocate(void* ptr, size_t nbytes) override;
  AllocatorStats stats() const override;
  void reset_peak() override;
  void release_cached() override;
  static size_t size_class(size_t nbytes);
  // Whether a cached block of class `block` may serve a request of class `request` (best fit within max_fit×).
  bool fits(size_t block, size_t request) const { return block >= request && block <= max_fit_ * request; }

 protected:
  virtual void* raw_allocate(size_t bytes) = 0;  // nullptr when out of memory
  virtual void raw_free(void* ptr) = 0;
  virtual uint64_t stream() const { return 0; }  // the stream a request is ordered on
  virtual void before_release() {}               // e.g. wait for the device before freeing

 private:
  void* take_cached(size_t cls, uint64_t stream, size_t nbytes);

  Device device_;
  int64_t cache_limit_;  // blocks beyond this many cached bytes are given back instead of cached
  size_t max_fit_;
  mutable std::mutex mu_;
  std::map<std::pair<uint64_t, size_t>, std::vector<void*>> free_lists_;  // (stream, size class) → blocks
  std::unordered_map<void*, size_t> live_class_;  // the class of each block handed out (≥ its request's)
  AllocatorStats stats_;
};

// 64-byte aligned host memory: the CPU's allocator and each strict device's.
class HostAllocator final : public CachingAllocator {
 public:
  static constexpr size_t kAlignment = 64;
  static constexpr size_t kHugePage = size_t(2) << 20;  // blocks this large are aligned to it and advised
  static constexpr size_t kMaxFit = 4;  // host blocks serve requests down to a quarter of their class
  explicit HostAllocator(Device device) : CachingAllocator(device, int64_t(8) << 30, kMaxFit) {}
  static HostAllocator& instance();  // the CPU's
  static HostAllocator& strict(int index);

 protected:
  void* raw_allocate(size_t bytes) override;
  void raw_free(void* ptr) override;
};

using CpuAllocator = HostAllocator;  // CpuAllocator::instance() is the CPU's allocator

}  // namespace lintra
