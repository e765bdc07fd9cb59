// device.h — where a tensor lives: a value with a type and an index.
//
//   cpu        the host; the only device whose memory host code may read (Tensor::data<T>() and friends)
//   cuda:N     GPU N (core/cuda/, built when the CUDA toolkit is found: LINTRA_WITH_CUDA). Tensors can
//              be made, copied (Tensor::to) and freed there; its kernel table runs copy, fill, the
//              elementwise ops and matmul (cuBLAS) so far, and every other kernel throws naming itself
//              (issue 15)
//   strict:N   the strict test device (DESIGN.md §3): host memory behind its own allocator that only its
//              kernel table may touch (core/strict/). Host access to it throws, and an op mixing it with
//              the CPU throws, so any code above the kernels that reads tensor data on the host, or that
//              creates a tensor on the wrong device, fails on it — without a GPU. N tells apart several
//              strict devices (for tests of mixed-device errors), 0 … kMaxStrictDevices − 1.
//
// Written and parsed as "cpu", "cuda:1", "strict:0"; "cuda" and "strict" alone mean index 0.
// Device::cpu is the value of the host; Device::cuda(n) and Device::strict(n) make the others.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace lintra {

enum class DeviceType : uint8_t { cpu, cuda, strict };

class Device {
 public:
  static constexpr int kMaxStrictDevices = 8;

  constexpr Device() = default;  // the CPU
  constexpr Device(DeviceType type, int index) : type_(type), index_(int16_t(type == DeviceType::cpu ? 0 : index)) {}

  static const Device cpu;
  static constexpr Device cuda(int index = 0) { return {DeviceType::cuda, index}; }
  static constexpr Device strict(int index = 0) { return {DeviceType::strict, index}; }
  // "cpu", "cuda", "cuda:N", "strict", "strict:N"; throws lintra::Error naming the text otherwise.
  static Device parse(std::string_view text);

  constexpr DeviceType type() const { return type_; }
  constexpr int index() const { return index_; }
  constexpr bool is_cpu() const { return type_ == DeviceType::cpu; }
  constexpr bool is_cuda() const { return type_ == DeviceType::cuda; }
  constexpr bool is_strict() const { return type_ == DeviceType::strict; }
  // Memory the process can address directly (cpu and strict): copies to and from it are memcpy.
  constexpr bool host_addressable() const { return type_ != DeviceType::cuda; }
  constexpr bool operator==(const Device&) const = default;

  std::string str() const;  // "cpu", "cuda:1", "strict:0"

 private:
  DeviceType type_ = DeviceType::cpu;
  int16_t index_ = 0;
};

inline constexpr Device Device::cpu{};

// True when this build has CUDA support (LINTRA_WITH_CUDA) and a GPU is visible.
bool cuda_available();
// GPUs visible to this process; 0 in a build without CUDA.
int cuda_device_count();
// Throws lintra::Error unless tensors can live on `device` in this process: cpu and strict always can;
// cuda:N needs a build with CUDA (LINTRA_WITH_CUDA) and GPU N visible. The message says which of the
// three is missing ("device cuda:0: this lintra was built without CUDA …").
void check_device_available(Device device);

}  // namespace lintra

template <> struct fmt::formatter<lintra::Device> : fmt::formatter<std::string_view> {
  auto format(const lintra::Device& d, format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(d.str(), ctx);
  }
};
