// device_copy.h — the explicit copy between devices behind Tensor::to(Device) and cross-device copy_():
// src is made contiguous on its own device, then its bytes are copied into a fresh tensor on `to`
// (memcpy between host-addressable devices, cuda/runtime.h copies to and from a GPU).
// Cost O(numel) bytes moved, plus one device kernel when src is not contiguous.
#pragma once

#include "core/tensor.h"

namespace lintra {

Tensor copy_to_device(const Tensor& src, Device to);

}  // namespace lintra
