// plot.h — line plots as PNG files for `lintra reproduce` (the paper's figures: training loss against
// steps on a log y axis, time and memory per sample against N on log–log axes, a validation metric
// against wall time). Dependency-free: rasterised here (2× supersampled, so anti-aliased), text from
// stb_easy_font, the file written by data/files/png.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lintra::experiments {

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
  bool operator==(const Rgb&) const = default;
};

// The default colours, series i taking plot_color(i % 8): the Okabe–Ito colour-blind-safe palette
// (blue, vermillion, bluish green, reddish purple, orange, sky blue, black, yellow).
Rgb plot_color(size_t i);

struct Series {
  std::string label;        // the legend's text; series with an empty label stay out of the legend
  std::vector<double> x, y;  // equal lengths; drawn in order, so x need not be sorted
  bool line = true;          // join consecutive points with a 2 px line
  bool markers = false;      // a filled circle at each point (eval points, sparse series)
  std::optional<Rgb> color;  // default: plot_color(index of the series)
};

struct PlotOptions {
  std::string title, x_label, y_label;  // empty: left out
  bool log_x = false, log_y = false;    // log axes: decades labelled, 2..9 as minor ticks
  int width = 800, height = 500;        // of the PNG in pixels, each 200..8192
};

// Draws the series into one plot (axes fitted to all finite points, with 4% margins; "nice" ticks:
// 1-2-5 steps on linear axes, powers of ten on log axes) and writes it as an RGB PNG. A point that is
// not finite, or not positive on a log axis, is skipped and breaks the line there; a series with no
// drawable points only appears in the legend. The legend sits in the plot's corner with the least data.
// Throws lintra::Error for no series, x and y of different lengths, a bad size or an unwritable file.
void write_line_plot(const std::vector<Series>& series, const PlotOptions& options, const std::string& png_path);

}  // namespace lintra::experiments
