// test_png.cpp — the PNG grid writer: the file decodes (stb_image, an independent decoder path) to
// the images placed at their cells with grey padding, grey and RGB; bad inputs throw clear errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/error.h"
#include "data/files/png.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>
#pragma GCC diagnostic pop

namespace lintra::data {
namespace {

std::string temp_png(const char* name) {
  return (std::filesystem::temp_directory_path() / (std::string("lintra_test_png_") + name + ".png")).string();
}

TEST(DataPng, GreyGridRoundTrip) {
  // 3 images of 2×3 in a 2×2 grid with padding 1: the 4th cell stays grey.
  std::vector<int64_t> px;
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t k = 0; k < 6; ++k) px.push_back(i * 80 + k * 5);
  const std::string path = temp_png("grey");
  write_png_grid(Tensor::from_vector(px, {3, 6}), 2, 2, 2, 3, 1, path);
  int w = 0, h = 0, c = 0;
  unsigned char* data = stbi_load(path.c_str(), &w, &h, &c, 0);
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(w, 2 * 3 + 3);
  EXPECT_EQ(h, 2 * 2 + 3);
  EXPECT_EQ(c, 1);
  auto at = [&](int y, int x) { return int(data[y * w + x]); };
  EXPECT_EQ(at(0, 0), 128);
  for (int64_t i = 0; i < 3; ++i)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 3; ++x) {
        const int top = 1 + int(i / 2) * 3, left = 1 + int(i % 2) * 4;
        EXPECT_EQ(at(top + y, left + x), int(i * 80 + (y * 3 + x) * 5)) << i << " " << y << " " << x;
      }
  EXPECT_EQ(at(4 + 1, 5 + 2), 128);  // the empty cell
  stbi_image_free(data);
  std::filesystem::remove(path);
}

TEST(DataPng, RgbChannelFastest) {
  // One 1×2 RGB image: pixel 0 = (255, 0, 0), pixel 1 = (0, 0, 255); no padding.
  const std::string path = temp_png("rgb");
  write_png_grid(Tensor::from_vector(std::vector<int64_t>{255, 0, 0, 0, 0, 255}, {1, 6}), 1, 1, 1, 2, 3, path, 0);
  int w = 0, h = 0, c = 0;
  unsigned char* data = stbi_load(path.c_str(), &w, &h, &c, 0);
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(w, 2);
  EXPECT_EQ(h, 1);
  EXPECT_EQ(c, 3);
  EXPECT_EQ(std::vector<int>(data, data + 6), (std::vector<int>{255, 0, 0, 0, 0, 255}));
  stbi_image_free(data);
  std::filesystem::remove(path);
}

// The message of the error that writing a one-pixel PNG to `path` throws.
std::string write_error(const std::string& path) {
  try {
    write_png_grid(Tensor::zeros({1, 1}, DType::i64), 1, 1, 1, 1, 1, path, 0);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(DataPng, Errors) {
  const std::string path = temp_png("bad");
  auto message = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  Tensor one = Tensor::zeros({1, 4}, DType::i64);
  EXPECT_NE(message([&] { write_png_grid(Tensor::full({1, 4}, 300, DType::i64), 1, 1, 2, 2, 1, path); })
                .find("value 300"),
            std::string::npos);
  EXPECT_NE(message([&] { write_png_grid(one, 1, 1, 2, 3, 1, path); }).find("images must be int64 (n, 6)"),
            std::string::npos);
  EXPECT_NE(message([&] { write_png_grid(one, 1, 1, 2, 2, 2, path); }).find("channels must be 1 or 3"),
            std::string::npos);
  EXPECT_NE(message([&] { write_png_grid(Tensor::zeros({3, 4}, DType::i64), 1, 2, 2, 2, 1, path); })
                .find("3 images do not fit a 1x2 grid"),
            std::string::npos);
  EXPECT_NE(message([&] { write_png_grid(one, 1, 1, 2, 2, 1, "/nonexistent-dir/x.png"); }).find("cannot open"),
            std::string::npos);
}

// The reason a PNG cannot be written is the system's, and names the missing folder only when one is
// missing (it used to ask "does its directory exist?" of a folder that did).
TEST(DataPng, AnUnwritablePathSaysWhy) {
  const std::string missing = write_error("/nonexistent-dir/x.png");
  EXPECT_NE(missing.find("No such file or directory (the folder '/nonexistent-dir' does not exist)"), std::string::npos)
      << missing;
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("lintra_png_dir_" + std::to_string(::getpid()))).string();
  std::filesystem::create_directories(dir + "/x.png");  // a folder where the file should go
  const std::string is_dir = write_error(dir + "/x.png");
  EXPECT_NE(is_dir.find("Is a directory"), std::string::npos) << is_dir;
  EXPECT_EQ(is_dir.find("does not exist"), std::string::npos) << is_dir;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace lintra::data
