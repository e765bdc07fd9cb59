// kernel_access.h — the one door to a tensor's memory that does not check for the host: for kernel
// tables only (core/cpu/, core/strict/, core/cuda/), never for code above the kernels. Host code reads
// CPU tensors through Tensor::data<T>(); everything else goes through an op or an explicit copy.
#pragma once

#include "core/tensor.h"

namespace lintra::kernels {

struct KernelAccess {
  // The address of element (0, …, 0) on the tensor's own device (a device pointer for CUDA).
  static void* data(const Tensor& t) { return t.unchecked_data(); }
  // The same elements (shape, strides, offset, dtype, the same bytes) as a CPU tensor, so that the CPU
  // kernels run on the memory of a host-addressable device (the strict device's table); an undefined
  // tensor stays undefined. Writes through the view land in the original's memory.
  static Tensor host_view(const Tensor& t);
};

}  // namespace lintra::kernels
