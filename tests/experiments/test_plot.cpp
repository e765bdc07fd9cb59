// test_plot.cpp — the PNG line plot: it decodes (stb_image, an independent decoder) at the requested
// size; a series in a known colour lands inside the plot area only; log axes skip zero, negative and
// non-finite points without crashing; bad inputs throw clear errors. Set LINTRA_PLOT_EXAMPLES to a
// folder to keep example figures there for a look.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <vector>

#include "core/error.h"
#include "experiments/plot.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>
#pragma GCC diagnostic pop

namespace lintra::experiments {
namespace {

std::string out_png(const char* name) {
  const char* keep = std::getenv("LINTRA_PLOT_EXAMPLES");
  const std::filesystem::path dir = keep ? std::filesystem::path(keep) : std::filesystem::temp_directory_path();
  return (dir / (std::string("lintra_test_plot_") + name + ".png")).string();
}

void cleanup(const std::string& path) {
  if (!std::getenv("LINTRA_PLOT_EXAMPLES")) std::filesystem::remove(path);
}

struct Image {
  int w = 0, h = 0;
  std::vector<unsigned char> rgb;
  explicit Image(const std::string& path) {
    int c = 0;
    unsigned char* data = stbi_load(path.c_str(), &w, &h, &c, 3);
    if (data) rgb.assign(data, data + size_t(w) * size_t(h) * 3), stbi_image_free(data);
  }
  bool is(int x, int y, Rgb c) const {
    const unsigned char* p = &rgb[(size_t(y) * size_t(w) + size_t(x)) * 3];
    return p[0] == c.r && p[1] == c.g && p[2] == c.b;
  }
  // The bounding box of the pixels of exactly colour c, or an empty box (x0 > x1).
  std::array<int, 4> box(Rgb c) const {
    std::array<int, 4> b{w, h, -1, -1};
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        if (is(x, y, c)) b = {std::min(b[0], x), std::min(b[1], y), std::max(b[2], x), std::max(b[3], y)};
    return b;
  }
};

// The plot area: the frame is the longest dark row and column run; find its edges from the middle.
std::array<int, 4> frame(const Image& im) {
  auto dark = [&](int x, int y) { return im.rgb[(size_t(y) * size_t(im.w) + size_t(x)) * 3] < 80; };
  int l = im.w / 2, r = im.w / 2, t = im.h / 2, b = im.h / 2;
  while (l > 0 && !dark(l, im.h / 2)) --l;
  while (r < im.w - 1 && !dark(r, im.h / 2)) ++r;
  while (t > 0 && !dark(im.w / 2, t)) --t;
  while (b < im.h - 1 && !dark(im.w / 2, b)) ++b;
  return {l, t, r, b};
}

TEST(ExperimentsPlot, DecodesAtTheRequestedSize) {
  const std::string path = out_png("size");
  write_line_plot({{"a", {0, 1, 2}, {3, 1, 2}}}, {.title = "size", .width = 640, .height = 360}, path);
  const Image im(path);
  ASSERT_FALSE(im.rgb.empty()) << stbi_failure_reason();
  EXPECT_EQ(im.w, 640);
  EXPECT_EQ(im.h, 360);
  EXPECT_TRUE(im.is(0, 0, Rgb{255, 255, 255}));  // white background
  cleanup(path);
}

TEST(ExperimentsPlot, SeriesColourStaysInsideThePlotArea) {
  const Rgb red{220, 20, 60};
  Series s{"loss", {}, {}};
  for (int i = 0; i <= 100; ++i) s.x.push_back(i), s.y.push_back(std::sin(i * 0.1) * 50 + 100);
  s.color = red;
  const std::string path = out_png("inside");
  write_line_plot({s}, {.title = "inside", .x_label = "step", .y_label = "loss"}, path);
  const Image im(path);
  ASSERT_FALSE(im.rgb.empty());
  const auto [l, t, r, b] = frame(im);
  ASSERT_LT(l, r);
  ASSERT_LT(t, b);
  const auto [x0, y0, x1, y1] = im.box(red);
  ASSERT_LE(x0, x1) << "no pixel of the series' colour";
  EXPECT_GT(x0, l);
  EXPECT_LT(x1, r);
  EXPECT_GT(y0, t);
  EXPECT_LT(y1, b);
  // The curve spans most of the plot area (4% margins each side).
  EXPECT_GT(x1 - x0, (r - l) * 8 / 10);
  EXPECT_GT(y1 - y0, (b - t) * 8 / 10);
  cleanup(path);
}

TEST(ExperimentsPlot, LogAxesSkipZeroNegativeAndNonFinitePoints) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  Series s{"with gaps", {0, 1, 2, 3, 4, 5, 6, 7}, {1, 0.5, 0, -1, 0.2, nan, 0.1, inf}};
  s.color = Rgb{0, 0, 255};
  const std::string path = out_png("log_gaps");
  ASSERT_NO_THROW(write_line_plot({s}, {.log_x = true, .log_y = true}, path));
  const Image im(path);
  ASSERT_FALSE(im.rgb.empty());
  // The drawable points (1, 0.5) (4, 0.2) (6, 0.1) each lie between undrawable ones: three dots, no
  // line (a line across the plot would colour hundreds of pixels, the legend swatch about 50).
  size_t blue = 0;
  for (int y = 0; y < im.h; ++y)
    for (int x = 0; x < im.w; ++x) blue += im.is(x, y, Rgb{0, 0, 255});
  EXPECT_GT(blue, 50u);
  EXPECT_LT(blue, 200u);
  cleanup(path);
  // Only invalid points, on a log axis; no points; one point: axes without a line, no crash.
  const std::string none = out_png("log_none"), empty = out_png("empty"), one = out_png("one_point");
  ASSERT_NO_THROW(write_line_plot({{"none", {0, -1}, {-2, 0}}}, {.log_y = true}, none));
  ASSERT_NO_THROW(write_line_plot({{"empty", {}, {}}}, {}, empty));
  ASSERT_NO_THROW(write_line_plot({{"one point", {3}, {3}}}, {.log_x = true, .log_y = true}, one));
  EXPECT_EQ(Image(one).w, 800);
  for (const std::string& p : {none, empty, one}) cleanup(p);
}

TEST(ExperimentsPlot, BadInputsThrowClearErrors) {
  const std::string path = out_png("bad");
  try {
    write_line_plot({}, {.title = "empty"}, path);
    FAIL() << "expected lintra::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no series"), std::string::npos) << e.what();
  }
  EXPECT_THROW(write_line_plot({{"a", {1, 2}, {1}}}, {}, path), Error);
  EXPECT_THROW(write_line_plot({{"a", {1}, {1}}}, {.width = 10}, path), Error);
  EXPECT_THROW(write_line_plot({{"a", {1}, {1}}}, {}, "/nonexistent/dir/x.png"), Error);
}

// Figure-like examples: a loss curve on a log y axis with sparse eval markers, and a log–log plot.
TEST(ExperimentsPlot, ExampleFigures) {
  Series train{"train loss", {}, {}}, eval{"validation loss", {}, {}};
  for (int step = 0; step <= 5000; step += 5) {
    const double noise = 0.08 * std::sin(step * 0.37) * std::cos(step * 0.011);
    train.x.push_back(step), train.y.push_back(2.3 * std::exp(-step / 700.0) + 0.06 + 0.04 * noise);
  }
  for (int step = 500; step <= 5000; step += 500)
    eval.x.push_back(step), eval.y.push_back(2.3 * std::exp(-step / 700.0) + 0.09);
  eval.markers = true;
  const std::string loss = out_png("example_loss");
  write_line_plot({train, eval}, {"Training loss (MNIST)", "step", "loss", false, true}, loss);
  EXPECT_EQ(Image(loss).w, 800);

  std::vector<Series> scaling{{"softmax", {}, {}}, {"linear", {}, {}}, {"lsh-4", {}, {}}};
  for (double n = 1 << 9; n <= 1 << 16; n *= 2) {
    scaling[0].x.push_back(n), scaling[0].y.push_back(n * n * 2e-9);
    scaling[1].x.push_back(n), scaling[1].y.push_back(n * 4e-6);
    if (n <= 1 << 14) scaling[2].x.push_back(n), scaling[2].y.push_back(n * std::log2(n) * 3e-6);
  }
  for (Series& s : scaling) s.markers = true;
  const std::string loglog = out_png("example_loglog");
  write_line_plot(scaling, {"GPU time per sample", "sequence length N", "time (s)", true, true}, loglog);
  EXPECT_EQ(Image(loglog).h, 500);
  cleanup(loss);
  cleanup(loglog);
}

}  // namespace
}  // namespace lintra::experiments
