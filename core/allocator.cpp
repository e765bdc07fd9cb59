#include "core/allocator.h"

#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <vector>

#include "core/error.h"

namespace lintra {
namespace {

struct State {
  std::mutex mu;
  std::map<size_t, std::vector<void*>> free_lists;  // size class → cached blocks
  AllocatorStats stats;
  // Blocks above this many cached bytes go back to the OS instead of the cache.
  int64_t cache_limit = int64_t(8) << 30;
};

State& state() {
  static State* s = new State();  // never destroyed: tensors may outlive static destructors
  return *s;
}

}  // namespace

CpuAllocator& CpuAllocator::instance() {
  static CpuAllocator a;
  return a;
}

size_t CpuAllocator::size_class(size_t n) {
  if (n == 0) return kAlignment;
  if (n <= 4096) return (n + 63) / 64 * 64;
  // 8 classes per power of two: round up to a multiple of 2^(floor(log2 n) - 3).
  size_t p = 63 - __builtin_clzll(n);
  size_t step = size_t(1) << (p - 3);
  return (n + step - 1) / step * step;
}

void* CpuAllocator::allocate(size_t nbytes) {
  size_t cls = size_class(nbytes);
  State& s = state();
  {
    std::lock_guard<std::mutex> lock(s.mu);
    s.stats.in_use_bytes += int64_t(nbytes);
    if (s.stats.in_use_bytes > s.stats.peak_bytes) s.stats.peak_bytes = s.stats.in_use_bytes;
    auto it = s.free_lists.find(cls);
    if (it != s.free_lists.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      s.stats.cached_bytes -= int64_t(cls);
      return p;
    }
    s.stats.os_allocations += 1;
  }
  void* p = std::aligned_alloc(kAlignment, cls);
  if (p == nullptr) {
    release_cached();
    p = std::aligned_alloc(kAlignment, cls);
  }
  if (p == nullptr) {
    std::lock_guard<std::mutex> lock(s.mu);
    s.stats.in_use_bytes -= int64_t(nbytes);
    LINTRA_FAIL("out of memory: could not allocate {} bytes ({:.1f} MiB) on the CPU", nbytes,
                double(nbytes) / (1 << 20));
  }
  return p;
}

void CpuAllocator::deallocate(void* ptr, size_t nbytes) {
  if (ptr == nullptr) return;
  size_t cls = size_class(nbytes);
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.stats.in_use_bytes -= int64_t(nbytes);
  if (s.stats.cached_bytes + int64_t(cls) > s.cache_limit) {
    std::free(ptr);
    return;
  }
  s.free_lists[cls].push_back(ptr);
  s.stats.cached_bytes += int64_t(cls);
}

AllocatorStats CpuAllocator::stats() const {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.stats;
}

void CpuAllocator::reset_peak() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.stats.peak_bytes = s.stats.in_use_bytes;
}

void CpuAllocator::release_cached() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  for (auto& [cls, blocks] : s.free_lists) {
    for (void* p : blocks) std::free(p);
    s.stats.cached_bytes -= int64_t(cls) * int64_t(blocks.size());
    blocks.clear();
  }
}

}  // namespace lintra
