// dtype.h — element types of a tensor.
//
//   f32  training (the only type of the fused kernels)
//   f64  gradient checks and references
//   i64  indices and lengths
//   u8   bytes: raw data (pixels) and booleans (masks, comparison results)
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.h"

namespace lintra {

enum class DType : uint8_t { f32, f64, i64, u8 };
constexpr DType kBool = DType::u8;  // booleans are stored as 0/1 bytes

constexpr size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32: return 4;
    case DType::f64: return 8;
    case DType::i64: return 8;
    case DType::u8: return 1;
  }
  return 0;
}

constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "float32";
    case DType::f64: return "float64";
    case DType::i64: return "int64";
    case DType::u8: return "uint8";
  }
  return "?";
}

constexpr bool is_floating(DType t) { return t == DType::f32 || t == DType::f64; }

template <typename T> struct dtype_of;
template <> struct dtype_of<float> { static constexpr DType value = DType::f32; };
template <> struct dtype_of<double> { static constexpr DType value = DType::f64; };
template <> struct dtype_of<int64_t> { static constexpr DType value = DType::i64; };
template <> struct dtype_of<uint8_t> { static constexpr DType value = DType::u8; };

}  // namespace lintra

template <> struct fmt::formatter<lintra::DType> : fmt::formatter<std::string_view> {
  auto format(lintra::DType t, format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(lintra::dtype_name(t), ctx);
  }
};

namespace lintra {

// dispatch_float(dtype, "op", [&]<typename scalar_t>() { … }): calls the lambda with scalar_t bound
// to the C++ type of a floating dtype; throws naming the op for any other dtype.
template <typename F>
decltype(auto) dispatch_float(DType t, const char* op, F&& f) {
  switch (t) {
    case DType::f32: return f.template operator()<float>();
    case DType::f64: return f.template operator()<double>();
    default: break;
  }
  LINTRA_FAIL("{}: expected a floating dtype (float32 or float64), got {}", op, t);
}

// Same for every dtype.
template <typename F>
decltype(auto) dispatch_all(DType t, const char* op, F&& f) {
  switch (t) {
    case DType::f32: return f.template operator()<float>();
    case DType::f64: return f.template operator()<double>();
    case DType::i64: return f.template operator()<int64_t>();
    case DType::u8: return f.template operator()<uint8_t>();
  }
  LINTRA_FAIL("{}: unknown dtype", op);
}

}  // namespace lintra
