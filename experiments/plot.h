// plot.h — the line plots of `lintra reproduce` (the paper's figures: training loss against steps on
// a log y axis, time and memory per sample against N on log–log axes, a validation metric against
// wall time). Drawn by matplotlib: write_line_plot writes the series as JSON and runs
// experiments/figures.py with Debian's /usr/bin/python3, which writes a PNG and an SVG beside it.
#pragma once

#include <string>
#include <vector>

namespace lintra::experiments {

struct Series {
  std::string label;         // the legend's text; series with an empty label stay out of the legend
  std::vector<double> x, y;  // equal lengths; drawn in order, so x need not be sorted
  bool line = true;          // join consecutive points with a line
  bool markers = false;      // a filled circle at each point (eval points, sparse series)
  int color = -1;            // index into the colour-blind-safe palette (figures.py); -1: the series' index
};

struct PlotOptions {
  std::string title, x_label, y_label;  // empty: left out
  bool log_x = false, log_y = false;
  int width = 800, height = 500;        // of the PNG in pixels, each 200..8192
};

// Draws the series into one plot and writes `<stem>.png` and `<stem>.svg` (stem: the path without
// an extension). A point that is not finite, or not positive on a log axis, is skipped and breaks the
// line there; a series with no drawable points only appears in the legend. Throws lintra::Error for
// no series, x and y of different lengths, a bad size, or a failed figures.py (its output quoted).
void write_line_plot(const std::vector<Series>& series, const PlotOptions& options, const std::string& stem);

// The script and interpreter write_line_plot runs (from the source tree; $LINTRA_PYTHON overrides the
// interpreter).
std::string figures_script();
std::string figures_python();

}  // namespace lintra::experiments
