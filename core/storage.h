// storage.h — a ref-counted buffer of bytes on one device, with a version counter.
//
// Tensors share a Storage through std::shared_ptr; views of one tensor share it too. The version
// counter is bumped by every in-place write through any of those tensors; autograd records it when
// it saves a tensor for backward and refuses to use the tensor if it changed (DESIGN.md §4).
//
// The bytes come from the device's caching allocator (core/allocator.h) and go back to it. A
// storage may instead borrow the bytes of another (`owner`, kept alive) under another device's name:
// that is how the strict device's kernels read its memory as CPU tensors (core/kernel_access.h).
// data() is the raw address on the storage's device; host code dereferences it only for the CPU.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/device.h"

namespace lintra {

class Allocator;

class Storage {
 public:
  Storage(size_t nbytes, Device device);
  // The bytes of `owner`, seen as memory of `as` (a host-addressable device, as the owner's).
  Storage(std::shared_ptr<Storage> owner, Device as);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  uint64_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }

 private:
  void* data_ = nullptr;
  size_t nbytes_ = 0;
  Device device_ = Device::cpu;
  Allocator* allocator_ = nullptr;  // null for a borrowed storage
  std::shared_ptr<Storage> owner_;  // the storage whose bytes these are, when borrowed
  std::atomic<uint64_t> version_{0};
};

}  // namespace lintra
