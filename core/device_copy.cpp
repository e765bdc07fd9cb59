#include "core/device_copy.h"

#include <cstring>

#include "core/kernel_access.h"

#ifdef LINTRA_WITH_CUDA
#include "core/cuda/runtime.h"
#endif

namespace lintra {

namespace {

void copy_bytes(Device to, void* dst, Device from, const void* src, size_t nbytes) {
  if (nbytes == 0) return;
  if (to.host_addressable() && from.host_addressable()) {
    std::memcpy(dst, src, nbytes);
    return;
  }
#ifdef LINTRA_WITH_CUDA
  if (from.host_addressable()) return cuda::copy_host_to_device(to.index(), dst, src, nbytes);
  if (to.host_addressable()) return cuda::copy_device_to_host(from.index(), dst, src, nbytes);
  return cuda::copy_device_to_device(to.index(), dst, from.index(), src, nbytes);
#else
  LINTRA_FAIL("copy from {} to {}: this build has no CUDA support", from, to);
#endif
}

}  // namespace

Tensor copy_to_device(const Tensor& src, Device to) {
  LINTRA_CHECK(src.defined(), "to({}): undefined tensor", to);
  const Tensor c = src.contiguous();
  Tensor out = Tensor::empty(c.shape(), c.dtype(), to);
  copy_bytes(to, kernels::KernelAccess::data(out), c.device(), kernels::KernelAccess::data(c), c.nbytes());
  return out;
}

namespace kernels {

Tensor KernelAccess::host_view(const Tensor& t) {
  if (!t.defined() || t.device().is_cpu()) return t;
  Tensor v = t;
  v.storage_ = std::make_shared<Storage>(t.storage_, Device::cpu);
  return v;
}

}  // namespace kernels

}  // namespace lintra
