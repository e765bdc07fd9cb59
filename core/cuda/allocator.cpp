// cuda/allocator.cpp — CudaAllocator: CachingAllocator over cudaMalloc/cudaFree (cuda/allocator.h).
//
// A block freed by a tensor goes to the free list of the stream it was used on (one stream per device
// today, cuda::stream); a later request on that stream takes it at once. That is safe without an event:
// the new owner's kernels are queued behind the old owner's on the same stream. Handing a block to
// another stream would need cudaEventRecord at the free and cudaStreamWaitEvent at the reuse; with one
// stream that never happens. Giving blocks back to the driver (release_cached, or beyond the cache
// limit of 3/4 of the device's memory) first waits for the stream, as cudaFree would.
#include <mutex>
#include <vector>

#include "core/cuda/allocator.h"
#include "core/cuda/runtime.h"
#include "core/error.h"

namespace lintra {

namespace {

class CudaAllocator final : public CachingAllocator {
 public:
  CudaAllocator(int index, int64_t cache_limit) : CachingAllocator(Device::cuda(index), cache_limit), index_(index) {}

 protected:
  void* raw_allocate(size_t bytes) override { return cuda::try_malloc(index_, bytes); }
  void raw_free(void* ptr) override { cuda::free(index_, ptr); }
  uint64_t stream() const override { return reinterpret_cast<uint64_t>(cuda::stream(index_)); }
  void before_release() override { cuda::synchronize(index_); }

 private:
  int index_;
};

int64_t cache_limit_of(int index) {
  size_t free_bytes = 0, total_bytes = 0;
  cuda::memory_info(index, free_bytes, total_bytes);
  return int64_t(total_bytes / 4 * 3);
}

}  // namespace

Allocator& cuda_allocator(int index) {
  cuda::check_device(index);
  static std::mutex mu;
  static auto* all = new std::vector<CudaAllocator*>();  // never destroyed, as the host allocators
  std::lock_guard<std::mutex> lock(mu);
  if (size_t(index) >= all->size()) all->resize(size_t(index) + 1, nullptr);
  CudaAllocator*& a = (*all)[size_t(index)];
  if (a == nullptr) a = new CudaAllocator(index, cache_limit_of(index));
  return *a;
}

}  // namespace lintra
