// cuda/errors.cpp — CUDA failures as lintra::Error (cuda/runtime.h). Host code compiled by g++: the
// .cu files report through detail::fail and never format messages themselves (nvcc cannot compile fmt).
#include "core/cuda/runtime.h"
#include "core/error.h"

namespace lintra::cuda::detail {

void fail(const char* call, int device, const char* message, const char* file, int line) {
  std::string hint;
  if (std::string_view(call) == "check_device")
    hint = fmt::format(" ({} CUDA device(s) visible; CUDA_VISIBLE_DEVICES selects them)", device_count());
  lintra::detail::throw_error(file, line, fmt::format("cuda:{}: {} failed: {}{}", device, call, message, hint));
}

}  // namespace lintra::cuda::detail
