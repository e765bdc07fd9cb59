// plot.cpp — the line-plot rasteriser. Everything is laid out in output pixels (doubles) and drawn
// into a canvas kS× larger per side, averaged down at the end: that is the anti-aliasing. Lines are
// capsules (round caps and joins), text is stb_easy_font's quads scaled up.
#include "experiments/plot.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "data/files/png.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wconversion"
#include <stb/stb_easy_font.h>
#pragma GCC diagnostic pop

namespace lintra::experiments {

Rgb plot_color(size_t i) {
  static constexpr std::array<Rgb, 8> okabe_ito{{{0, 114, 178}, {213, 94, 0}, {0, 158, 115}, {204, 121, 167},
                                                 {230, 159, 0}, {86, 180, 233}, {0, 0, 0}, {240, 228, 66}}};
  return okabe_ito[i % okabe_ito.size()];
}

namespace {

constexpr int kS = 2;                      // supersampling factor per side
constexpr Rgb kInk{25, 25, 25}, kFrame{40, 40, 40};
constexpr Rgb kGrid{222, 222, 222}, kMinorGrid{243, 243, 243}, kLegendEdge{190, 190, 190};
constexpr double kFont = 2;                // text scale: one stb_easy_font unit is 2 output pixels
constexpr double kSupFont = 1.5;           // superscripts (10^k labels)
constexpr double kCap = 7;                 // stb_easy_font's cap and digit height in font units
constexpr double kTick = 5, kMinorTick = 3;

struct Canvas {
  int w, h;  // supersampled size
  std::vector<uint8_t> px;
  double clip_x0 = -1e9, clip_y0 = -1e9, clip_x1 = 1e9, clip_y1 = 1e9;  // output pixels

  Canvas(int width, int height) : w(width * kS), h(height * kS), px(size_t(w) * size_t(h) * 3, 255) {}

  // Visits the supersampled pixels whose centres fall in [x0, x1) × [y0, y1) (output pixels), clipped.
  template <class F>
  void each(double x0, double y0, double x1, double y1, F&& f) {
    x0 = std::max(x0, clip_x0), y0 = std::max(y0, clip_y0), x1 = std::min(x1, clip_x1), y1 = std::min(y1, clip_y1);
    const int i0 = std::max(0, int(std::ceil(x0 * kS - 0.5))), i1 = std::min(w, int(std::ceil(x1 * kS - 0.5)));
    const int j0 = std::max(0, int(std::ceil(y0 * kS - 0.5))), j1 = std::min(h, int(std::ceil(y1 * kS - 0.5)));
    for (int j = j0; j < j1; ++j)
      for (int i = i0; i < i1; ++i) f(i, j, (i + 0.5) / kS, (j + 0.5) / kS);
  }
  void set(int i, int j, Rgb c) {
    uint8_t* p = &px[(size_t(j) * size_t(w) + size_t(i)) * 3];
    p[0] = c.r, p[1] = c.g, p[2] = c.b;
  }
  void rect(double x0, double y0, double x1, double y1, Rgb c) {
    each(x0, y0, x1, y1, [&](int i, int j, double, double) { set(i, j, c); });
  }
  void whiten(double x0, double y0, double x1, double y1, double alpha) {  // white at this opacity over it
    each(x0, y0, x1, y1, [&](int i, int j, double, double) {
      for (int ch = 0; ch < 3; ++ch) {
        uint8_t& p = px[(size_t(j) * size_t(w) + size_t(i)) * 3 + size_t(ch)];
        p = uint8_t(std::lround(p * (1 - alpha) + 255 * alpha));
      }
    });
  }
  // The points within r of the segment a–b: a line of width 2r with round ends.
  void capsule(double ax, double ay, double bx, double by, double r, Rgb c) {
    const double dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy;
    each(std::min(ax, bx) - r, std::min(ay, by) - r, std::max(ax, bx) + r, std::max(ay, by) + r,
         [&](int i, int j, double x, double y) {
           const double t = len2 > 0 ? std::clamp(((x - ax) * dx + (y - ay) * dy) / len2, 0.0, 1.0) : 0.0;
           const double ex = x - ax - t * dx, ey = y - ay - t * dy;
           if (ex * ex + ey * ey <= r * r) set(i, j, c);
         });
  }
  std::vector<uint8_t> downsample() const {
    std::vector<uint8_t> out(size_t(w / kS) * size_t(h / kS) * 3);
    for (int y = 0; y < h / kS; ++y)
      for (int x = 0; x < w / kS; ++x)
        for (int ch = 0; ch < 3; ++ch) {
          int sum = 0;
          for (int j = 0; j < kS; ++j)
            for (int i = 0; i < kS; ++i) sum += px[((size_t(y * kS + j) * size_t(w)) + size_t(x * kS + i)) * 3 + size_t(ch)];
          out[(size_t(y) * size_t(w / kS) + size_t(x)) * 3 + size_t(ch)] = uint8_t((sum + kS * kS / 2) / (kS * kS));
        }
    return out;
  }
};

// ---- text -----------------------------------------------------------------------------------------

std::string printable(const std::string& s) {  // stb_easy_font knows ASCII 32..126 only
  std::string out;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 32 && c <= 126) out += ch;
    else if (c < 128 || (c & 0xC0) == 0xC0) out += c == '\n' || c == '\t' ? ' ' : '?';  // one '?' per UTF-8 character
  }
  return out;
}

double text_width(const std::string& s, double scale) {
  std::string t = printable(s);
  return s.empty() ? 0 : (stb_easy_font_width(t.data()) - 1) * scale;  // less the gap after the last glyph
}

// Draws s with its top-left corner at (x, y); vertical text reads bottom to top, (x, y) then being the
// bottom-left corner of the rotated text (tops of the glyphs towards smaller x).
void draw_text(Canvas& cv, const std::string& s, double x, double y, double scale, Rgb c, bool vertical = false) {
  std::string t = printable(s);
  std::vector<char> buf(t.size() * 1200 + 64);
  const int quads = stb_easy_font_print(0, 0, t.data(), nullptr, buf.data(), int(buf.size()));
  for (int q = 0; q < quads; ++q) {
    const float* v0 = reinterpret_cast<const float*>(buf.data() + q * 64);       // top-left vertex
    const float* v2 = reinterpret_cast<const float*>(buf.data() + q * 64 + 32);  // bottom-right vertex
    if (!vertical) cv.rect(x + v0[0] * scale, y + v0[1] * scale, x + v2[0] * scale, y + v2[1] * scale, c);
    else cv.rect(x + v0[1] * scale, y - v2[0] * scale, x + v2[1] * scale, y - v0[0] * scale, c);
  }
}

// A tick label: base text with an optional superscript (10^k).
struct Label {
  std::string base, sup;
  double width() const { return text_width(base, kFont) + (sup.empty() ? 0 : 1 + text_width(sup, kSupFont)); }
};

void draw_label(Canvas& cv, const Label& l, double x, double y) {
  draw_text(cv, l.base, x, y, kFont, kInk);
  if (!l.sup.empty()) draw_text(cv, l.sup, x + text_width(l.base, kFont) + 1, y - 0.45 * kCap * kFont, kSupFont, kInk);
}

// ---- axes and ticks -------------------------------------------------------------------------------

struct Axis {
  bool log = false;
  double lo = 0, hi = 1;  // data range (positive on a log axis)
  double p0 = 0, p1 = 1;  // output pixel coordinates of lo and hi
  bool valid(double v) const { return std::isfinite(v) && (!log || v > 0); }
  double t(double v) const { return log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (v - lo) / (hi - lo); }
  double map(double v) const { return p0 + t(v) * (p1 - p0); }
  double pixels() const { return std::abs(p1 - p0); }
};

struct Ticks {
  std::vector<std::pair<double, Label>> major;
  std::vector<double> minor;
};

std::string trim_number(std::string s) {  // "2.50" -> "2.5", "-0" -> "0"
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

// Plain decimals to the step's precision, or (sci) mantissa "e" exponent: "2.5e6".
std::string format_number(double v, double step, bool sci) {
  const int step_e = int(std::floor(std::log10(step) + 1e-9));
  if (v == 0 || !sci) return trim_number(fmt::format("{:.{}f}", v, std::max(0, -step_e)));
  const int e = int(std::floor(std::log10(std::abs(v)) + 1e-9));
  return trim_number(fmt::format("{:.{}f}", v / std::pow(10.0, e), std::clamp(e - step_e, 0, 8))) + "e" +
         std::to_string(e);
}

// Whether labels at these pixel positions keep clear of each other along the axis.
bool fits(const Ticks& t, const Axis& ax, bool horizontal) {
  for (size_t i = 1; i < t.major.size(); ++i) {
    const double gap = std::abs(ax.map(t.major[i].first) - ax.map(t.major[i - 1].first));
    const double need = horizontal ? (t.major[i].second.width() + t.major[i - 1].second.width()) / 2 + 14
                                   : kCap * kFont * 2.2;
    if (gap < need) return false;
  }
  return true;
}

Ticks linear_ticks(const Axis& ax, bool horizontal) {
  const double span = ax.hi - ax.lo, target = std::max(2.0, ax.pixels() / (horizontal ? 100.0 : 60.0));
  double step = std::pow(10.0, std::floor(std::log10(span / target)));
  for (double m : {1.0, 2.0, 5.0})  // the smallest 1-2-5 step giving at most `target` intervals
    if (span / (m * step) <= target) { step *= m; break; }
  if (span / step > target) step *= 10;
  Ticks t;
  for (int tries = 0; tries < 12; ++tries) {
    t.major.clear();
    const double big = std::max(std::abs(ax.lo), std::abs(ax.hi));
    const bool sci = big >= 1e6 || big < 1e-3 || step < 1e-6;
    for (double k = std::ceil(ax.lo / step - 1e-9); k * step <= ax.hi + step * 1e-9; k += 1)
      t.major.push_back({k * step, Label{format_number(k * step, step, sci), ""}});
    if (fits(t, ax, horizontal)) break;
    const double m = std::round(step / std::pow(10.0, std::floor(std::log10(step) + 1e-9)));
    step *= m == 2 ? 2.5 : 2;  // 1 → 2 → 5 → 10
  }
  return t;
}

Ticks log_ticks(const Axis& ax, bool horizontal) {
  const double l0 = std::log10(ax.lo), l1 = std::log10(ax.hi);
  const int e0 = int(std::floor(l0)), e1 = int(std::ceil(l1));
  const bool superscripts = e0 < -3 || e1 > 5;  // 10^k labels when plain numbers would get long
  auto label = [&](int m, int e) {
    if (m == 1 && superscripts) return Label{"10", std::to_string(e)};
    if (e >= -4 && e <= 5) return Label{format_number(m * std::pow(10.0, e), std::pow(10.0, e), false), ""};
    return Label{std::to_string(m) + "e" + std::to_string(e), ""};
  };
  auto in_range = [&](double v) { return v >= ax.lo * (1 - 1e-9) && v <= ax.hi * (1 + 1e-9); };
  // Labelled mantissas: decades (every stride-th), then 1-2-5, then 1..9; the rest become minor ticks.
  const std::vector<std::vector<int>> sets{{1}, {1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}};
  for (size_t s = 0; s < sets.size(); ++s)
    for (int stride : s == 0 ? std::vector<int>{1, 2, 3, 5, 10, 20} : std::vector<int>{1}) {
      Ticks t;
      for (int e = e0; e <= e1; ++e)
        for (int m = 1; m <= 9; ++m) {
          const double v = m * std::pow(10.0, e);
          if (!in_range(v)) continue;
          const bool labelled = std::find(sets[s].begin(), sets[s].end(), m) != sets[s].end() && e % stride == 0;
          if (labelled) t.major.push_back({v, label(m, e)});
          else if (m == 1 || ax.pixels() / (l1 - l0) >= 30) t.minor.push_back(v);
        }
      if (t.major.size() < 3 && !(s == 0 && stride > 1 && t.major.size() >= 2)) break;  // too few: next set
      if (fits(t, ax, horizontal)) return t;
    }
  Ticks t = linear_ticks(ax, horizontal);  // under a factor of ~2: linear ticks placed on the log axis
  std::erase_if(t.major, [&](const auto& m) { return m.first <= 0; });
  return t;
}

Ticks make_ticks(const Axis& ax, bool horizontal) { return ax.log ? log_ticks(ax, horizontal) : linear_ticks(ax, horizontal); }

// The range of the valid values, widened by 4% each side (in log space on a log axis).
void fit_range(Axis& ax, const std::vector<double>& values) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (double v : values)
    if (ax.valid(v)) lo = std::min(lo, ax.log ? std::log10(v) : v), hi = std::max(hi, ax.log ? std::log10(v) : v);
  if (!(lo <= hi)) lo = 0, hi = 1;  // nothing to draw: a unit range (1..10 on a log axis)
  if (hi - lo < 1e-12 * std::max(1.0, std::abs(lo))) {
    const double pad = ax.log ? 0.5 : (lo == 0 ? 1 : 0.1 * std::abs(lo));
    lo -= pad, hi += pad;
  }
  const double margin = 0.04 * (hi - lo);
  lo -= margin, hi += margin;
  ax.lo = ax.log ? std::pow(10.0, lo) : lo;
  ax.hi = ax.log ? std::pow(10.0, hi) : hi;
}

// Where everything goes: the axes mapped to pixels, their ticks, the plot area's edges.
struct Frame {
  Axis ax, ay;
  Ticks tx, ty;
  double L = 0, R = 0, T = 0, B = 0;  // the plot area, whole pixels
  double text_h = 0;
};

// The vertical margins are fixed by the text; the left one by the y tick labels.
Frame layout(const std::vector<Series>& series, const PlotOptions& o) {
  std::vector<double> xs, ys;
  for (const Series& s : series)
    for (size_t i = 0; i < s.x.size(); ++i)
      if (std::isfinite(s.x[i]) && std::isfinite(s.y[i]) && (!o.log_x || s.x[i] > 0) && (!o.log_y || s.y[i] > 0))
        xs.push_back(s.x[i]), ys.push_back(s.y[i]);
  Frame f{Axis{o.log_x}, Axis{o.log_y}};
  fit_range(f.ax, xs);
  fit_range(f.ay, ys);
  f.text_h = kCap * kFont;
  const double top = o.title.empty() ? 16 : 14 + 1.2 * f.text_h + 14;
  const double bottom = o.height - (kTick + 6 + f.text_h + (o.x_label.empty() ? 12 : 12 + f.text_h + 12));
  f.ay.p0 = bottom, f.ay.p1 = top;
  f.ty = make_ticks(f.ay, false);
  double label_w = 0;
  for (const auto& [v, l] : f.ty.major) label_w = std::max(label_w, l.width());
  const double left = 12 + (o.y_label.empty() ? 0 : f.text_h + 12) + label_w + 6 + kTick;
  double right = o.width - 20.0;
  f.ax.p0 = left, f.ax.p1 = right;
  f.tx = make_ticks(f.ax, true);
  if (!f.tx.major.empty()) {  // keep the last x label inside the image
    const double overhang = f.ax.map(f.tx.major.back().first) + f.tx.major.back().second.width() / 2 - (o.width - 6.0);
    if (overhang > 0) f.ax.p1 = right -= overhang, f.tx = make_ticks(f.ax, true);
  }
  f.L = std::round(left), f.R = std::round(right), f.T = std::round(top), f.B = std::round(bottom);
  f.ax.p0 = f.L, f.ax.p1 = f.R, f.ay.p0 = f.B, f.ay.p1 = f.T;
  return f;
}

double snap(double p) { return std::floor(p) + 0.5; }  // the centre of a pixel: crisp 1 px lines

// Grid lines (minor on log axes, then major), clipped to the plot area.
void draw_grid(Canvas& cv, const Frame& f) {
  for (double v : f.tx.minor) cv.rect(snap(f.ax.map(v)) - 0.5, f.T, snap(f.ax.map(v)) + 0.5, f.B, kMinorGrid);
  for (double v : f.ty.minor) cv.rect(f.L, snap(f.ay.map(v)) - 0.5, f.R, snap(f.ay.map(v)) + 0.5, kMinorGrid);
  for (const auto& [v, l] : f.tx.major) cv.rect(snap(f.ax.map(v)) - 0.5, f.T, snap(f.ax.map(v)) + 0.5, f.B, kGrid);
  for (const auto& [v, l] : f.ty.major) cv.rect(f.L, snap(f.ay.map(v)) - 0.5, f.R, snap(f.ay.map(v)) + 0.5, kGrid);
}

// One series: a polyline broken at points that cannot be drawn, and markers. Returns the points it
// covers (for placing the legend).
std::vector<std::pair<double, double>> draw_series(Canvas& cv, const Frame& f, const Series& s, Rgb c) {
  std::vector<std::pair<double, double>> pts;
  auto valid = [&](size_t i) { return f.ax.valid(s.x[i]) && f.ay.valid(s.y[i]); };
  bool prev = false;
  for (size_t i = 0; i < s.x.size(); ++i) {
    if (!valid(i)) {
      prev = false;
      continue;
    }
    const double px = f.ax.map(s.x[i]), py = f.ay.map(s.y[i]);
    const bool next = i + 1 < s.x.size() && valid(i + 1);
    if (s.line && prev) {
      const auto [qx, qy] = pts.back();
      cv.capsule(qx, qy, px, py, 1.0, c);
      for (double t = 0.25; t < 1; t += 0.25) pts.push_back({qx + t * (px - qx), qy + t * (py - qy)});
    } else if (s.line && !next && !s.markers) {
      cv.capsule(px, py, px, py, 2.5, c);  // an isolated point still shows
    }
    pts.push_back({px, py});
    prev = true;
  }
  if (s.markers)
    for (size_t i = 0; i < s.x.size(); ++i)
      if (valid(i)) cv.capsule(f.ax.map(s.x[i]), f.ay.map(s.y[i]), f.ax.map(s.x[i]), f.ay.map(s.y[i]), 3.5, c);
  return pts;
}

// Frame, ticks and tick labels; the axis labels and the title, centred on the plot area.
void draw_axes(Canvas& cv, const Frame& f, const PlotOptions& o) {
  const double L = f.L, R = f.R, T = f.T, B = f.B, text_h = f.text_h;
  cv.rect(L - 1, T - 1, R + 1, T, kFrame), cv.rect(L - 1, B, R + 1, B + 1, kFrame);
  cv.rect(L - 1, T, L, B, kFrame), cv.rect(R, T, R + 1, B, kFrame);
  for (double v : f.tx.minor) cv.rect(snap(f.ax.map(v)) - 0.5, B + 1, snap(f.ax.map(v)) + 0.5, B + 1 + kMinorTick, kFrame);
  for (double v : f.ty.minor) cv.rect(L - 1 - kMinorTick, snap(f.ay.map(v)) - 0.5, L - 1, snap(f.ay.map(v)) + 0.5, kFrame);
  for (const auto& [v, l] : f.tx.major) {
    const double p = snap(f.ax.map(v));
    cv.rect(p - 0.5, B + 1, p + 0.5, B + 1 + kTick, kFrame);
    draw_label(cv, l, std::round(p - l.width() / 2), B + 1 + kTick + 6);
  }
  for (const auto& [v, l] : f.ty.major) {
    const double p = snap(f.ay.map(v));
    cv.rect(L - 1 - kTick, p - 0.5, L - 1, p + 0.5, kFrame);
    draw_label(cv, l, std::round(L - 1 - kTick - 6 - l.width()), std::round(p - text_h / 2));
  }
  if (!o.x_label.empty())
    draw_text(cv, o.x_label, std::round((L + R - text_width(o.x_label, kFont)) / 2), o.height - 12 - text_h, kFont, kInk);
  if (!o.y_label.empty())
    draw_text(cv, o.y_label, 12, std::round((T + B + text_width(o.y_label, kFont)) / 2), kFont, kInk, true);
  if (!o.title.empty()) {
    const double x = std::round((L + R - text_width(o.title, kFont * 1.25)) / 2);
    draw_text(cv, o.title, x, 14, kFont * 1.25, kInk);
    draw_text(cv, o.title, x + 0.5, 14, kFont * 1.25, kInk);  // bold: drawn twice, half a pixel apart
  }
}

// The legend: a box in the corner of the plot area that covers the fewest drawn points.
void draw_legend(Canvas& cv, const Frame& f, const std::vector<Series>& series,
                 const std::vector<std::vector<std::pair<double, double>>>& drawn) {
  double legend_w = 0;
  size_t entries = 0;
  for (const Series& s : series)
    if (!s.label.empty()) legend_w = std::max(legend_w, text_width(s.label, kFont)), ++entries;
  if (entries == 0) return;
  const double L = f.L, R = f.R, T = f.T, B = f.B, text_h = f.text_h;
  const double row = text_h + 9, swatch = 26, pad = 8, inset = 10;
  const double w = pad + swatch + 8 + legend_w + pad, h = pad + double(entries) * row - 9 + pad;
  double best_x = R - inset - w, best_y = T + inset;
  size_t best = std::numeric_limits<size_t>::max();
  for (const auto& [cx, cy] : std::array<std::pair<double, double>, 4>{
           {{R - inset - w, T + inset}, {L + inset, T + inset}, {R - inset - w, B - inset - h}, {L + inset, B - inset - h}}}) {
    size_t covered = 0;
    for (const auto& pts : drawn)
      for (const auto& [px, py] : pts) covered += px >= cx - 4 && px <= cx + w + 4 && py >= cy - 4 && py <= cy + h + 4;
    if (covered < best) best = covered, best_x = std::round(cx), best_y = std::round(cy);
  }
  const double x0 = best_x, y0 = best_y, x1 = best_x + w, y1 = best_y + h;
  cv.whiten(x0 + 1, y0 + 1, x1 - 1, y1 - 1, 0.85);
  cv.rect(x0, y0, x1, y0 + 1, kLegendEdge), cv.rect(x0, y1 - 1, x1, y1, kLegendEdge);
  cv.rect(x0, y0 + 1, x0 + 1, y1 - 1, kLegendEdge), cv.rect(x1 - 1, y0 + 1, x1, y1 - 1, kLegendEdge);
  double y = best_y + pad;
  for (size_t k = 0; k < series.size(); ++k) {
    const Series& s = series[k];
    if (s.label.empty()) continue;
    const Rgb c = s.color.value_or(plot_color(k));
    const double mid = y + text_h / 2, sx = best_x + pad;
    if (s.line) cv.capsule(sx + 1, mid, sx + swatch - 1, mid, 1.0, c);
    if (s.markers) cv.capsule(sx + swatch / 2, mid, sx + swatch / 2, mid, 3.5, c);
    draw_text(cv, s.label, sx + swatch + 8, y, kFont, kInk);
    y += row;
  }
}

}  // namespace

void write_line_plot(const std::vector<Series>& series, const PlotOptions& o, const std::string& png_path) {
  constexpr const char* what = "write_line_plot";
  LINTRA_CHECK(!series.empty(), "{}: no series to plot for '{}' (title '{}')", what, png_path, o.title);
  LINTRA_CHECK(o.width >= 200 && o.width <= 8192 && o.height >= 200 && o.height <= 8192,
               "{}: the plot size must be 200..8192 pixels per side, got {}x{}", what, o.width, o.height);
  for (const Series& s : series)
    LINTRA_CHECK(s.x.size() == s.y.size(), "{}: series '{}' has {} x values but {} y values", what, s.label,
                 s.x.size(), s.y.size());
  const Frame f = layout(series, o);
  Canvas cv(o.width, o.height);
  cv.clip_x0 = f.L, cv.clip_y0 = f.T, cv.clip_x1 = f.R, cv.clip_y1 = f.B;
  draw_grid(cv, f);
  std::vector<std::vector<std::pair<double, double>>> drawn;
  for (size_t k = 0; k < series.size(); ++k)
    drawn.push_back(draw_series(cv, f, series[k], series[k].color.value_or(plot_color(k))));
  cv.clip_x0 = cv.clip_y0 = -1e9, cv.clip_x1 = cv.clip_y1 = 1e9;
  draw_axes(cv, f, o);
  draw_legend(cv, f, series, drawn);
  data::write_png_rgb(cv.downsample(), o.width, o.height, png_path);
}

}  // namespace lintra::experiments
