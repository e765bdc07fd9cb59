// png.cpp — the PNG grid writer over stb_image_write (Debian libstb-dev, header only here: the
// implementation is compiled into this file, static, so no symbol can clash with libstb).
#include "data/files/png.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/error.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>
#pragma GCC diagnostic pop

namespace lintra::data {

namespace {

// Why a file cannot be opened for writing: the system's reason, and for a missing folder which one.
std::string open_failure(const std::string& path, int err) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (err == ENOENT && !parent.empty() && !std::filesystem::exists(parent, ec))
    return fmt::format("{} (the folder '{}' does not exist)", std::strerror(err), parent.string());
  return std::strerror(err);
}

void encode_and_write(const uint8_t* pixels, int64_t W, int64_t H, int64_t channels, const std::string& path,
                      const char* what) {
  std::string png;
  auto append = [](void* ctx, void* data, int size) {
    static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), size_t(size));
  };
  const int ok = stbi_write_png_to_func(append, &png, int(W), int(H), int(channels), pixels, int(W * channels));
  LINTRA_CHECK(ok != 0, "{}: PNG encoding failed for a {}x{} image", what, W, H);
  std::FILE* out = std::fopen(path.c_str(), "wb");
  LINTRA_CHECK(out != nullptr, "{}: cannot open '{}' for writing: {}", what, path, open_failure(path, errno));
  const size_t written = std::fwrite(png.data(), 1, png.size(), out);
  const int write_err = errno;
  const bool closed = std::fclose(out) == 0;
  LINTRA_CHECK(written == png.size() && closed, "{}: writing '{}' failed: {}", what, path,
               std::strerror(written == png.size() ? errno : write_err));
}

}  // namespace

void write_png_grid(const Tensor& images, int64_t rows, int64_t cols, int64_t height, int64_t width,
                    int64_t channels, const std::string& path, int64_t padding) {
  constexpr const char* what = "write_png_grid";
  LINTRA_CHECK(channels == 1 || channels == 3, "{}: channels must be 1 or 3, got {}", what, channels);
  LINTRA_CHECK(rows >= 1 && cols >= 1 && height >= 1 && width >= 1 && padding >= 0,
               "{}: rows, cols, height and width must be positive and padding >= 0, got {}x{} cells of {}x{}, "
               "padding {}",
               what, rows, cols, height, width, padding);
  const int64_t per_image = height * width * channels;
  LINTRA_CHECK(images.defined() && images.dim() == 2 && images.dtype() == DType::i64 && images.size(1) == per_image,
               "{}: images must be int64 (n, {}) for {}x{}x{} images, got {}", what, per_image, height, width,
               channels, images.defined() ? images.describe() : "undefined");
  const int64_t n = images.size(0);
  LINTRA_CHECK(n <= rows * cols, "{}: {} images do not fit a {}x{} grid", what, n, rows, cols);
  const int64_t W = cols * width + (cols + 1) * padding;
  const int64_t H = rows * height + (rows + 1) * padding;
  LINTRA_CHECK(W <= (1 << 15) && H <= (1 << 15), "{}: the grid is {}x{} pixels; at most 32768 per side", what, W, H);

  const std::vector<int64_t> px = images.contiguous().to_vector<int64_t>();
  std::vector<uint8_t> canvas(size_t(W * H * channels), 128);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t top = padding + (i / cols) * (height + padding);
    const int64_t left = padding + (i % cols) * (width + padding);
    for (int64_t y = 0; y < height; ++y)
      for (int64_t x = 0; x < width; ++x)
        for (int64_t c = 0; c < channels; ++c) {
          const int64_t v = px[size_t(i * per_image + (y * width + x) * channels + c)];
          LINTRA_CHECK(v >= 0 && v <= 255, "{}: image {} has value {} at ({}, {}, {}); expected 0..255", what, i, v,
                       y, x, c);
          canvas[size_t(((top + y) * W + left + x) * channels + c)] = uint8_t(v);
        }
  }

  encode_and_write(canvas.data(), W, H, channels, path, what);
}


}  // namespace lintra::data
