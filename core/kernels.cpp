// kernels.cpp — the choice of kernel table by device, and the mixed-device error (kernels.h).
#include "core/kernels.h"

#include <string_view>

namespace lintra::kernels {

const KernelTable& on(Device device) {
  switch (device.type()) {
    case DeviceType::cpu: return cpu::table;
    case DeviceType::strict: return strict::table;
    case DeviceType::cuda:
#ifdef LINTRA_WITH_CUDA
      return cuda_backend::table;
#else
      break;
#endif
  }
  LINTRA_FAIL("a {} tensor reached the kernel list (core/kernels.h), but this lintra was built without CUDA", device);
}

namespace detail {

namespace {

// "lintra::ops::binary" from "lintra::Tensor lintra::ops::binary(lintra::kernels::BinaryOp, …)".
std::string_view short_name(std::string_view f) {
  const size_t paren = f.find('(');
  if (paren != std::string_view::npos) f = f.substr(0, paren);
  const size_t space = f.rfind(' ');
  return space == std::string_view::npos ? f : f.substr(space + 1);
}

std::string what(const Tensor& t) { return fmt::format("{}{}", t.dtype(), shape_str(t.shape())); }

}  // namespace

void mixed_devices(const DeviceCheck& c, int position, const Tensor& t) {
  LINTRA_FAIL(
      "{}: tensors on different devices: {} (argument {} of the kernel) is on {} and {} (argument {}) is on {}; an "
      "op runs on one device: move one of them first with .to({}) or .to({}) (kernel called at {}:{})",
      short_name(c.caller.function_name()), what(*c.first), c.first_position, c.first->device(), what(t),
      position, t.device(), t.device(), c.first->device(), c.caller.file_name(), c.caller.line());
}

}  // namespace detail

}  // namespace lintra::kernels
