// storage.h — a ref-counted buffer of bytes on one device, with a version counter.
//
// Tensors share a Storage through std::shared_ptr; views of one tensor share it too. The version
// counter is bumped by every in-place write through any of those tensors; autograd records it when
// it saves a tensor for backward and refuses to use the tensor if it changed (DESIGN.md §4).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/device.h"

namespace lintra {

class Storage {
 public:
  Storage(size_t nbytes, Device device);
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
  std::atomic<uint64_t> version_{0};
};

}  // namespace lintra
