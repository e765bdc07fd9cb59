// allocator.h — the caching CPU allocator.
//
// Returning large blocks to the OS every step costs heavy page-fault time on these machines
// (DESIGN.md §2.1), so freed blocks are kept in per-size free lists and reused. Sizes are rounded
// up to a size class (multiples of 64 bytes below 4 KiB, then 8 classes per power of two), so a
// block serves any request of its class. Every block is 64-byte aligned.
//
// The allocator also counts bytes in use and their peak, which the attention benchmark reports as
// "peak memory per sample" (the CPU analogue of torch.cuda.max_memory_allocated).
#pragma once

#include <cstddef>
#include <cstdint>

namespace lintra {

struct AllocatorStats {
  int64_t in_use_bytes = 0;    // requested bytes of live tensors' storage
  int64_t peak_bytes = 0;      // maximum of in_use_bytes since the last reset_peak()
  int64_t cached_bytes = 0;    // bytes held in free lists
  int64_t os_allocations = 0;  // number of blocks obtained from the OS
};

class CpuAllocator {
 public:
  static CpuAllocator& instance();
  void* allocate(size_t nbytes);
  void deallocate(void* ptr, size_t nbytes);
  AllocatorStats stats() const;
  void reset_peak();
  void release_cached();  // give every cached block back to the OS
  static size_t size_class(size_t nbytes);
  static constexpr size_t kAlignment = 64;
};

}  // namespace lintra
