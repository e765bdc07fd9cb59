// device.h — where a tensor lives. CPU always; CUDA has its value and dispatch slot and is filled
// by the CUDA build (LINTRA_CUDA). A CPU-only build refuses CUDA tensors with a clear error.
#pragma once

#include <cstdint>
#include <string_view>

#include <fmt/format.h>

namespace lintra {

enum class Device : uint8_t { cpu, cuda };

constexpr std::string_view device_name(Device d) { return d == Device::cpu ? "cpu" : "cuda"; }

// True when this build has CUDA support and a device is visible.
bool cuda_available();

}  // namespace lintra

template <> struct fmt::formatter<lintra::Device> : fmt::formatter<std::string_view> {
  auto format(lintra::Device d, format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(lintra::device_name(d), ctx);
  }
};
