#include "core/device.h"

#include <charconv>

#include "core/error.h"

#ifdef LINTRA_WITH_CUDA
#include "core/cuda/runtime.h"
#endif

namespace lintra {

namespace {

int parse_index(std::string_view digits, std::string_view text) {
  int index = -1;
  const char* end = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(digits.data(), end, index);
  LINTRA_CHECK(!digits.empty() && ec == std::errc() && ptr == end && index >= 0,
               "device '{}': the index after ':' must be a non-negative integer", text);
  return index;
}

}  // namespace

Device Device::parse(std::string_view text) {
  const size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  const int index = colon == std::string_view::npos ? 0 : parse_index(text.substr(colon + 1), text);
  if (name == "cpu") {
    LINTRA_CHECK(index == 0, "device '{}': the CPU has no index other than 0", text);
    return Device::cpu;
  }
  if (name == "cuda") return Device::cuda(index);
  if (name == "strict") {
    LINTRA_CHECK(index < kMaxStrictDevices, "device '{}': strict devices are strict:0 … strict:{}", text,
                 kMaxStrictDevices - 1);
    return Device::strict(index);
  }
  LINTRA_FAIL("unknown device '{}': expected cpu, cuda, cuda:N, strict or strict:N", text);
}

std::string Device::str() const {
  switch (type_) {
    case DeviceType::cpu: return "cpu";
    case DeviceType::cuda: return fmt::format("cuda:{}", index_);
    case DeviceType::strict: return fmt::format("strict:{}", index_);
  }
  return "?";
}

bool cuda_available() { return cuda_device_count() > 0; }

int cuda_device_count() {
#ifdef LINTRA_WITH_CUDA
  return cuda::device_count();
#else
  return 0;
#endif
}

void check_device_available(Device device) {
  if (!device.is_cuda()) return;
#ifndef LINTRA_WITH_CUDA
  LINTRA_FAIL("device {}: this lintra was built without CUDA (configured with -DLINTRA_CUDA=OFF, or the CUDA "
              "toolkit was not found); rebuild with the toolkit, or use the CPU",
              device);
#else
  const int count = cuda_device_count();
  LINTRA_CHECK(count > 0,
               "device {}: no GPU is visible to this process (a CUDA build, but the driver reports no device: check "
               "nvidia-smi and CUDA_VISIBLE_DEVICES), or use the CPU",
               device);
  LINTRA_CHECK(device.index() < count, "device {}: only {} GPU(s) are visible (cuda:0 … cuda:{})", device, count,
               count - 1);
#endif
}

}  // namespace lintra
