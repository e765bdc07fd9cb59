#include "core/allocator.h"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

#include "core/error.h"

#ifdef LINTRA_WITH_CUDA
#include "core/cuda/allocator.h"
#endif

namespace lintra {

// --- the caching logic ------------------------------------------------------------------------------

size_t CachingAllocator::size_class(size_t n) {
  if (n == 0) return HostAllocator::kAlignment;
  if (n <= 4096) return (n + 63) / 64 * 64;
  // 8 classes per power of two: round up to a multiple of 2^(floor(log2 n) - 3).
  size_t p = 63 - __builtin_clzll(n);
  size_t step = size_t(1) << (p - 3);
  return (n + step - 1) / step * step;
}

// The smallest cached block on this stream whose class fits the request's (its own class first), or
// nullptr; counts the request as in use either way. The free lists are ordered by (stream, class), so
// the candidates are the few lists from the request's class up to max_fit times it.
void* CachingAllocator::take_cached(size_t cls, uint64_t stream, size_t nbytes) {
  std::lock_guard<std::mutex> lock(mu_);
  stats_.in_use_bytes += int64_t(nbytes);
  if (stats_.in_use_bytes > stats_.peak_bytes) stats_.peak_bytes = stats_.in_use_bytes;
  for (auto it = free_lists_.lower_bound({stream, cls});
       it != free_lists_.end() && it->first.first == stream && fits(it->first.second, cls); ++it) {
    if (it->second.empty()) continue;
    void* p = it->second.back();
    it->second.pop_back();
    stats_.cached_bytes -= int64_t(it->first.second);
    live_class_[p] = it->first.second;
    return p;
  }
  stats_.os_allocations += 1;
  return nullptr;
}

void* CachingAllocator::allocate(size_t nbytes) {
  const size_t cls = size_class(nbytes);
  const uint64_t st = stream();
  if (void* p = take_cached(cls, st, nbytes)) return p;
  void* p = raw_allocate(cls);
  if (p == nullptr) {  // give the cache back and try once more
    release_cached();
    p = raw_allocate(cls);
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (p == nullptr) {
    stats_.in_use_bytes -= int64_t(nbytes);
    LINTRA_FAIL("out of memory: could not allocate {} bytes ({:.1f} MiB) on {}", nbytes, double(nbytes) / (1 << 20),
                device_.is_cpu() ? std::string("the CPU") : device_.str());
  }
  live_class_[p] = cls;
  return p;
}

void CachingAllocator::deallocate(void* ptr, size_t nbytes) {
  if (ptr == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto live = live_class_.find(ptr);
    LINTRA_CHECK(live != live_class_.end(), "{} allocator: freeing a block it did not hand out", device_.str());
    const size_t cls = live->second;  // the block's own class, which may exceed the request's
    live_class_.erase(live);
    stats_.in_use_bytes -= int64_t(nbytes);
    if (stats_.cached_bytes + int64_t(cls) <= cache_limit_) {
      free_lists_[{stream(), cls}].push_back(ptr);
      stats_.cached_bytes += int64_t(cls);
      return;
    }
  }
  before_release();
  raw_free(ptr);
}

AllocatorStats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void CachingAllocator::reset_peak() {
  std::lock_guard<std::mutex> lock(mu_);
  stats_.peak_bytes = stats_.in_use_bytes;
}

void CachingAllocator::release_cached() {
  std::lock_guard<std::mutex> lock(mu_);
  before_release();
  for (auto& [key, blocks] : free_lists_) {
    for (void* p : blocks) raw_free(p);
    stats_.cached_bytes -= int64_t(key.second) * int64_t(blocks.size());
    blocks.clear();
  }
}

// --- host memory (cpu, strict) -------------------------------------------------------------------------

// Blocks of at least a huge page start on a huge-page boundary and every whole huge page of them is
// advised as such (Linux transparent huge pages; Debian's default mode `madvise` gives them only to
// advised memory): the first touch of a fresh block then faults once per 2 MiB instead of once per
// 4 KiB, which is most of the cost of a fresh block in a virtual machine. The advice is a hint: where
// the kernel has no huge pages free or THP is off, madvise fails or is ignored and the block is plain.
void* HostAllocator::raw_allocate(size_t bytes) {
  if (bytes < kHugePage) return std::aligned_alloc(kAlignment, bytes);  // classes are multiples of 64
  void* p = nullptr;
  if (posix_memalign(&p, kHugePage, bytes) != 0) return nullptr;
  (void)madvise(p, bytes / kHugePage * kHugePage, MADV_HUGEPAGE);
  return p;
}
void HostAllocator::raw_free(void* ptr) { std::free(ptr); }

HostAllocator& HostAllocator::instance() {
  static HostAllocator* a = new HostAllocator(Device::cpu);  // never destroyed: tensors may outlive statics
  return *a;
}

HostAllocator& HostAllocator::strict(int index) {
  LINTRA_CHECK(index >= 0 && index < Device::kMaxStrictDevices, "strict:{}: strict devices are strict:0 … strict:{}",
               index, Device::kMaxStrictDevices - 1);
  static HostAllocator** all = [] {
    auto** a = new HostAllocator*[Device::kMaxStrictDevices];
    for (int i = 0; i < Device::kMaxStrictDevices; ++i) a[i] = new HostAllocator(Device::strict(i));
    return a;
  }();
  return *all[index];
}

// --- by device -------------------------------------------------------------------------------------------

Allocator& allocator_for(Device device) {
  switch (device.type()) {
    case DeviceType::cpu: return HostAllocator::instance();
    case DeviceType::strict: return HostAllocator::strict(device.index());
    case DeviceType::cuda:
#ifdef LINTRA_WITH_CUDA
      return cuda_allocator(device.index());
#else
      LINTRA_FAIL("{}: this build has no CUDA support (configure with the CUDA toolkit, LINTRA_CUDA=AUTO or ON)",
                  device);
#endif
  }
  LINTRA_FAIL("allocator_for: unknown device type");
}

}  // namespace lintra
