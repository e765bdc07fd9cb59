// test_plot.cpp — the figures of `lintra reproduce`, drawn by matplotlib (experiments/figures.py):
// the PNG decodes (stb_image, an independent decoder) at the requested size beside an SVG that keeps
// the title, axis labels and legend as text (a long title is wrapped, not cut off); log axes skip
// zero, negative and non-finite points without failing; bad inputs and a failing script throw clear
// errors. Set LINTRA_PLOT_EXAMPLES to a folder to keep example figures there for a look.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

#include "core/error.h"
#include "experiments/plot.h"
#include "tests/test_util.h"

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

namespace fs = std::filesystem;

std::string out_stem(const char* name) {
  const char* keep = std::getenv("LINTRA_PLOT_EXAMPLES");
  const fs::path dir = keep ? fs::path(keep) : fs::temp_directory_path();
  return (dir / (std::string("lintra_test_plot_") + name)).string();
}

void cleanup(const std::string& stem) {
  if (std::getenv("LINTRA_PLOT_EXAMPLES")) return;
  fs::remove(stem + ".png");
  fs::remove(stem + ".svg");
}

struct Png {
  int w = 0, h = 0;
  explicit Png(const std::string& path) {
    int c = 0;
    unsigned char* data = stbi_load(path.c_str(), &w, &h, &c, 3);
    if (data) stbi_image_free(data);
  }
};

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ExperimentsPlot, PngAtTheRequestedSizeAndSvgBesideIt) {
  const std::string stem = out_stem("size");
  write_line_plot({{"a", {0, 1, 2}, {3, 1, 2}}}, {.title = "size", .width = 640, .height = 360}, stem);
  const Png im(stem + ".png");
  EXPECT_EQ(im.w, 640) << stbi_failure_reason();
  EXPECT_EQ(im.h, 360);
  const std::string svg = read_text(stem + ".svg");
  EXPECT_HAS(svg, "<svg");
  EXPECT_HAS(svg, ">size<");
  cleanup(stem);
}

TEST(ExperimentsPlot, TitleLabelsAndLegendAreKeptWhole) {
  const std::string title =
      "speech: dev phone error rate against training wall time for every row of the table (the paper's Figure 5c)";
  Series a{"softmax (train)", {1, 2, 3}, {0.9, 0.5, 0.3}}, b{"linear (train)", {1, 2, 3}, {0.8, 0.6, 0.4}};
  const std::string stem = out_stem("long_title");
  write_line_plot({a, b}, {.title = title, .x_label = "training wall time (s)", .y_label = "dev PER (%)"}, stem);
  const std::string svg = read_text(stem + ".svg");
  // Every word of the title survives (wrapped onto lines, never clipped off the canvas).
  std::istringstream words(title);
  for (std::string w; words >> w;) EXPECT_HAS(svg, w);
  for (const char* text : {"training wall time (s)", "dev PER (%)", "softmax (train)", "linear (train)"})
    EXPECT_HAS(svg, text);
  cleanup(stem);
}

TEST(ExperimentsPlot, LogAxesSkipZeroNegativeAndNonFinitePoints) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const std::string stem = out_stem("log_gaps");
  ASSERT_NO_THROW(write_line_plot({{"with gaps", {0, 1, 2, 3, 4, 5, 6, 7}, {1, 0.5, 0, -1, 0.2, nan, 0.1, inf}}},
                                  {.log_x = true, .log_y = true}, stem));
  EXPECT_EQ(Png(stem + ".png").w, 800);
  // Only invalid points, on a log axis; no points; one point: axes without a line, no failure.
  const std::string none = out_stem("log_none"), empty = out_stem("empty"), one = out_stem("one_point");
  ASSERT_NO_THROW(write_line_plot({{"none", {0, -1}, {-2, 0}}}, {.log_y = true}, none));
  ASSERT_NO_THROW(write_line_plot({{"empty", {}, {}}}, {}, empty));
  ASSERT_NO_THROW(write_line_plot({{"one point", {3}, {3}}}, {.log_x = true, .log_y = true}, one));
  EXPECT_EQ(Png(one + ".png").h, 500);
  for (const std::string& p : {stem, none, empty, one}) cleanup(p);
}

TEST(ExperimentsPlot, BadInputsThrowClearErrors) {
  const std::string stem = out_stem("bad");
  EXPECT_HAS(testing::error_of([&] { write_line_plot({}, {.title = "empty"}, stem); }), "no series");
  EXPECT_HAS(testing::error_of([&] { write_line_plot({{"a", {1, 2}, {1}}}, {}, stem); }), "2 x values but 1 y values");
  EXPECT_HAS(testing::error_of([&] { write_line_plot({{"a", {1}, {1}}}, {.width = 10}, stem); }), "200..8192");
  EXPECT_HAS(testing::error_of([&] { write_line_plot({{"a", {1}, {1}}}, {}, "/nonexistent/dir/x"); }),
             "drawing /nonexistent/dir/x.png with matplotlib");
}

TEST(ExperimentsPlot, AFailingInterpreterIsNamed) {
  setenv("LINTRA_PYTHON", "/bin/false", 1);
  const std::string msg = testing::error_of([&] { write_line_plot({{"a", {1}, {1}}}, {}, out_stem("no_python")); });
  unsetenv("LINTRA_PYTHON");
  EXPECT_HAS(msg, "/bin/false");
  EXPECT_HAS(msg, "python3-matplotlib");
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
  eval.line = false;
  eval.markers = true;
  const std::string loss = out_stem("example_loss");
  write_line_plot({train, eval}, {"Training loss (MNIST)", "step", "loss", false, true}, loss);
  EXPECT_EQ(Png(loss + ".png").w, 800);

  std::vector<Series> scaling{{"softmax", {}, {}}, {"linear", {}, {}}, {"lsh-4", {}, {}}};
  for (double n = 1 << 9; n <= 1 << 16; n *= 2) {
    scaling[0].x.push_back(n), scaling[0].y.push_back(n * n * 2e-9);
    scaling[1].x.push_back(n), scaling[1].y.push_back(n * 4e-6);
    if (n <= 1 << 14) scaling[2].x.push_back(n), scaling[2].y.push_back(n * std::log2(n) * 3e-6);
  }
  for (Series& s : scaling) s.markers = true;
  const std::string loglog = out_stem("example_loglog");
  write_line_plot(scaling, {"GPU time per sample", "sequence length N", "time (s)", true, true}, loglog);
  EXPECT_EQ(Png(loglog + ".png").h, 500);
  cleanup(loss);
  cleanup(loglog);
}

}  // namespace
}  // namespace lintra::experiments
