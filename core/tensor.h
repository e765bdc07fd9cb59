// tensor.h — lintra's n-d array: storage + shape + strides + offset + dtype (+ the storage's device).
//
// Dimension letters used across lintra: B batch, N (or T) sequence length, H heads, E query/key
// width per head, M value width per head, D model width, V vocabulary/outputs.
//
// Views (view/reshape, permute, transpose, squeeze, unsqueeze, expand, slice, narrow) share storage
// and never copy; reshape copies only when the strides cannot express the new shape. Every kernel
// accepts strided inputs; outputs are fresh and contiguous unless stated. In-place writes
// (fill_, copy_, the *_ methods) bump the storage's version counter.
//
// A Tensor is a cheap handle: copying one shares the data (like torch.Tensor). Use clone() to copy.
//
// Devices (core/device.h). Every factory takes the device to make the tensor on (the CPU by default);
// ops make their results on their inputs' device, and an op whose inputs live on different devices
// throws naming both (the check is in the kernel call, core/kernels.h). to(device) is the explicit
// copy between devices. Host code reads elements — data<T>(), raw_data(), item(), at(), to_vector() —
// of CPU tensors only: on any other device they throw, saying to copy with .cpu() first.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "core/device.h"
#include "core/dtype.h"
#include "core/shape.h"
#include "core/storage.h"

namespace lintra {

class Generator;
namespace kernels {
struct KernelAccess;
}

class Tensor {
 public:
  Tensor() = default;  // undefined tensor: defined() is false

  // --- factories (each on `device`, the CPU by default) ------------------------------------------
  static Tensor empty(const Shape& shape, DType dtype = DType::f32, Device device = Device::cpu);
  static Tensor zeros(const Shape& shape, DType dtype = DType::f32, Device device = Device::cpu);
  static Tensor ones(const Shape& shape, DType dtype = DType::f32, Device device = Device::cpu);
  static Tensor full(const Shape& shape, double value, DType dtype = DType::f32, Device device = Device::cpu);
  static Tensor scalar(double value, DType dtype = DType::f32, Device device = Device::cpu);  // 0-d tensor
  static Tensor arange(int64_t n, DType dtype = DType::i64, Device device = Device::cpu);    // 0, 1, …, n-1
  // The values are made on the host and copied to `device` (an explicit copy).
  template <typename T>
  static Tensor from_vector(const std::vector<T>& values, const Shape& shape, Device device = Device::cpu);
  static Tensor from_vector(std::initializer_list<float> values, const Shape& shape, Device device = Device::cpu) {
    return from_vector(std::vector<float>(values), shape, device);
  }
  // Random tensors (core/rng.h); the numbers do not depend on the device.
  static Tensor uniform(const Shape& shape, Generator& gen, double low = 0, double high = 1,
                        DType dtype = DType::f32, Device device = Device::cpu);
  static Tensor normal(const Shape& shape, Generator& gen, double mean = 0, double std = 1,
                       DType dtype = DType::f32, Device device = Device::cpu);

  // --- metadata ------------------------------------------------------------------------------
  bool defined() const { return storage_ != nullptr; }
  const Shape& shape() const { return shape_; }
  const Strides& strides() const { return strides_; }
  int64_t dim() const { return int64_t(shape_.size()); }
  int64_t size(int64_t d) const;
  int64_t stride(int64_t d) const;
  int64_t numel() const { return numel_of(shape_); }
  int64_t offset() const { return offset_; }
  DType dtype() const { return dtype_; }
  Device device() const { return storage_ ? storage_->device() : Device::cpu; }
  bool is_contiguous() const;
  size_t nbytes() const { return size_t(numel()) * dtype_size(dtype_); }
  std::string describe() const;  // "float32[2, 3]"; off the CPU "float32[2, 3] on strict:0"

  const std::shared_ptr<Storage>& storage() const { return storage_; }
  uint64_t version() const { return storage_ ? storage_->version() : 0; }
  void bump_version() const {
    if (storage_) storage_->bump_version();
  }
  bool shares_storage_with(const Tensor& other) const { return storage_ == other.storage_; }

  // Pointer to element (0, …, 0) — already includes the offset. T must match dtype(). CPU tensors
  // only (kernels reach other devices' memory through core/kernel_access.h).
  template <typename T> T* data() const;
  void* raw_data() const;

  // --- views (no copy) -----------------------------------------------------------------------
  Tensor view(const Shape& shape) const;     // requires compatible strides; -1 infers one dim
  Tensor reshape(const Shape& shape) const;  // view when possible, else a contiguous copy
  Tensor flatten() const { return reshape({numel()}); }
  Tensor permute(const std::vector<int64_t>& dims) const;
  Tensor transpose(int64_t d0, int64_t d1) const;
  Tensor squeeze(int64_t d) const;
  Tensor unsqueeze(int64_t d) const;
  Tensor expand(const Shape& shape) const;  // -1 keeps a dim; new leading dims allowed
  Tensor slice(int64_t d, int64_t start, int64_t end, int64_t step = 1) const;  // python-style bounds
  Tensor narrow(int64_t d, int64_t start, int64_t length) const;
  Tensor select(int64_t d, int64_t index) const;  // drops dim d
  Tensor as_strided(const Shape& shape, const Strides& strides, int64_t offset) const;

  // --- copies --------------------------------------------------------------------------------
  Tensor contiguous() const;  // this when already contiguous
  Tensor clone() const;       // always a fresh contiguous copy
  Tensor to(DType dtype) const;    // this when the dtype is already dtype
  Tensor to(Device device) const;  // a contiguous copy on device; this when already there
  Tensor cpu() const { return to(Device::cpu); }

  // --- in-place (bump the version) -----------------------------------------------------------
  Tensor& fill_(double value);
  Tensor& zero_() { return fill_(0.0); }
  Tensor& copy_(const Tensor& src);  // src broadcasts to this; casts dtype; copies from another device

  // --- element access (slow: tests and small bookkeeping only; CPU tensors only) -------------
  double item() const;  // requires numel() == 1
  double at(const std::vector<int64_t>& index) const;
  template <typename T> std::vector<T> to_vector() const;  // contiguous row-major copy, cast to T

 private:
  friend struct kernels::KernelAccess;
  void* unchecked_data() const;  // raw_data() on any device
  // Throws unless host code may read this tensor's elements (it is on the CPU); `what` names the access.
  void check_host_access(const char* what) const;

  std::shared_ptr<Storage> storage_;
  Shape shape_;
  Strides strides_;
  int64_t offset_ = 0;
  DType dtype_ = DType::f32;
};

template <typename T> T* Tensor::data() const {
  check_host_access("data<T>()");
  LINTRA_CHECK(dtype_of<T>::value == dtype_, "data<{}>() on a {} tensor", dtype_of<T>::value, dtype_);
  return static_cast<T*>(unchecked_data());
}

}  // namespace lintra
