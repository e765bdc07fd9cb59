#include "experiments/plot.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "data/files/shell.h"

#ifndef LINTRA_SOURCE_DIR
#error "LINTRA_SOURCE_DIR must be defined by experiments/CMakeLists.txt"
#endif

namespace lintra::experiments {

namespace {

nlohmann::ordered_json spec_json(const std::vector<Series>& series, const PlotOptions& o, const std::string& stem) {
  nlohmann::ordered_json spec = {{"out", stem},        {"title", o.title},   {"x_label", o.x_label},
                                 {"y_label", o.y_label}, {"log_x", o.log_x}, {"log_y", o.log_y},
                                 {"width", o.width},    {"height", o.height}};
  spec["series"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < series.size(); ++i) {
    const Series& s = series[i];
    spec["series"].push_back({{"label", s.label},
                              {"x", s.x},  // non-finite values become null: figures.py skips them
                              {"y", s.y},
                              {"line", s.line},
                              {"markers", s.markers},
                              {"color", s.color >= 0 ? s.color : int(i)}});
  }
  return spec;
}

}  // namespace

std::string figures_script() { return std::string(LINTRA_SOURCE_DIR) + "/experiments/figures.py"; }

std::string figures_python() {
  const char* p = std::getenv("LINTRA_PYTHON");
  return p && *p ? p : "/usr/bin/python3";
}

void write_line_plot(const std::vector<Series>& series, const PlotOptions& o, const std::string& stem) {
  constexpr const char* what = "write_line_plot";
  LINTRA_CHECK(!series.empty(), "{}: no series to plot for '{}' (title '{}')", what, stem, o.title);
  LINTRA_CHECK(o.width >= 200 && o.width <= 8192 && o.height >= 200 && o.height <= 8192,
               "{}: the plot size must be 200..8192 pixels per side, got {}x{}", what, o.width, o.height);
  for (const Series& s : series)
    LINTRA_CHECK(s.x.size() == s.y.size(), "{}: series '{}' has {} x values but {} y values", what, s.label,
                 s.x.size(), s.y.size());
  data::TempDir tmp("lintra-figure");
  const std::string spec_path = (tmp.path() / "figure.json").string();
  {
    std::ofstream f(spec_path);
    f << spec_json(series, o, stem).dump();
    LINTRA_CHECK(f.good(), "{}: cannot write {}", what, spec_path);
  }
  data::run_shell_checked(fmt::format("{} {} {}", data::shell_quote(figures_python()),
                                      data::shell_quote(figures_script()), data::shell_quote(spec_path)),
                          fmt::format("drawing {}.png with matplotlib (needs python3-matplotlib: "
                                      "tools/install-deps.sh)",
                                      stem));
}

}  // namespace lintra::experiments
