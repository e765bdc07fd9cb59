// kernels.cpp — the choice of kernel table by device (kernels.h).
#include "core/kernels.h"

namespace lintra::kernels {

const KernelTable& on(Device device) {
  LINTRA_CHECK(device == Device::cpu,
               "a {} tensor reached the kernel list (core/kernels.h), but this build has no CUDA kernels: only the "
               "CPU table (core/cpu/kernel_table.cpp) exists",
               device);
  return cpu::table;
}

}  // namespace lintra::kernels
