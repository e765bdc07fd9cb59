#include "experiments/claims.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"

namespace lintra::experiments {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const std::vector<double>& values_of(const SeedValues& v, const std::string& row) {
  auto it = v.find(row);
  LINTRA_CHECK(it != v.end(), "claims: no values for row '{}'", row);
  return it->second;
}

bool all_finite(const std::vector<double>& xs) {
  return !xs.empty() && std::all_of(xs.begin(), xs.end(), [](double x) { return std::isfinite(x); });
}

double mean(const std::vector<double>& xs) {
  double s = 0;
  for (double x : xs) s += x;
  return xs.empty() ? kNaN : s / double(xs.size());
}

double range(const std::vector<double>& xs) {
  if (xs.empty()) return kNaN;
  const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
  return *hi - *lo;
}

std::vector<double> logs(const std::vector<double>& xs) {
  std::vector<double> out;
  for (double x : xs) out.push_back(x > 0 ? std::log(x) : kNaN);
  return out;
}

std::string listed(const std::vector<double>& xs) {
  std::vector<std::string> parts;
  for (double x : xs) parts.push_back(fmt::format("{:.4g}", x));
  return fmt::format("{}", fmt::join(parts, ", "));
}

// margin, spread and the evidence line of each kind; NaN margin when a value is missing.
struct Measure {
  double margin = kNaN, spread = kNaN;
  std::string evidence;
};

Measure measure_lower(const Claim& c, const SeedValues& v) {
  const auto &a = values_of(v, c.a), &b = values_of(v, c.b);
  Measure m;
  if (!all_finite(a) || !all_finite(b)) return m;
  m.margin = mean(b) - mean(a);
  m.spread = std::max(range(a), range(b));
  m.evidence = fmt::format("{} {:.4g} ({}), {} {:.4g} ({})", c.a, mean(a), listed(a), c.b, mean(b), listed(b));
  return m;
}

Measure measure_lowest(const Claim& c, const SeedValues& v) {
  const auto& a = values_of(v, c.a);
  Measure m;
  if (!all_finite(a)) return m;
  m.margin = std::numeric_limits<double>::infinity();
  m.spread = range(a);
  m.evidence = fmt::format("{} {:.4g} ({})", c.a, mean(a), listed(a));
  for (const auto& [row, xs] : v) {
    if (row == c.a) continue;
    if (!all_finite(xs)) return {};
    m.margin = std::min(m.margin, mean(xs) - mean(a));
    m.spread = std::max(m.spread, range(xs));
    m.evidence += fmt::format("; {} {:.4g} ({})", row, mean(xs), listed(xs));
  }
  return m;
}

Measure measure_within_factor(const Claim& c, const SeedValues& v) {
  const auto &a = values_of(v, c.a), &b = values_of(v, c.b);
  const std::vector<double> la = logs(a), lb = logs(b);
  Measure m;
  if (!all_finite(la) || !all_finite(lb)) return m;
  m.margin = std::log(c.threshold) - std::abs(mean(la) - mean(lb));
  m.spread = std::max(range(la), range(lb));
  m.evidence = fmt::format("{} {:.4g} ({}), {} {:.4g} ({}): a factor of {:.3g} apart (geometric means)", c.a,
                           std::exp(mean(la)), listed(a), c.b, std::exp(mean(lb)), listed(b),
                           std::exp(std::abs(mean(la) - mean(lb))));
  return m;
}

Measure measure_ratio(const Claim& c, const SeedValues& v) {
  const auto &a = values_of(v, c.a), &b = values_of(v, c.b);
  Measure m;
  if (!all_finite(a) || !all_finite(b) || a.size() != b.size()) return m;
  std::vector<double> ratios;
  for (size_t s = 0; s < a.size(); ++s) ratios.push_back(b[s] / a[s]);
  if (!all_finite(ratios)) return m;
  m.margin = mean(ratios) - c.threshold;
  m.spread = range(ratios);
  m.evidence = fmt::format("{} / {} = {:.3g} (per {}: {}), against {:g}", c.b, c.a, mean(ratios), c.sample,
                           listed(ratios), c.threshold);
  return m;
}

int fewest_seeds(const Claim& c, const SeedValues& v) {
  size_t n = std::numeric_limits<size_t>::max();
  for (const auto& [row, xs] : v)
    if (c.kind == Claim::Kind::lowest || row == c.a || row == c.b) n = std::min(n, xs.size());
  return n == std::numeric_limits<size_t>::max() ? 0 : int(n);
}

const char* metric_words(const std::string& metric) {
  if (metric == "eval_loss") return "final eval loss";
  if (metric == "bits_per_dim") return "final eval bits/dim";
  if (metric == "per") return "final dev PER";
  if (metric == "epochs") return "epochs trained";
  if (metric == "epoch_seconds") return "training seconds per epoch";
  if (metric == "images_per_s") return "images per second";
  if (metric == "seconds_per_image") return "seconds per image";
  return metric.c_str();
}

}  // namespace

Verdict judge(const Claim& c, const SeedValues& values) {
  Measure m;
  switch (c.kind) {
    case Claim::Kind::lower: m = measure_lower(c, values); break;
    case Claim::Kind::lowest: m = measure_lowest(c, values); break;
    case Claim::Kind::within_factor: m = measure_within_factor(c, values); break;
    case Claim::Kind::ratio_at_least: m = measure_ratio(c, values); break;
  }
  Verdict v{m.margin, m.spread, fewest_seeds(c, values), "inconclusive at this budget", m.evidence};
  if (!std::isfinite(m.margin)) {
    v.evidence = "a run did not report " + std::string(metric_words(c.metric));
    return v;
  }
  if (v.seeds < 2) {
    v.evidence += fmt::format("; one {0} per row, so no {0} spread was measured", c.sample);
    return v;
  }
  if (m.margin > m.spread) v.word = "holds";
  else if (m.margin < -m.spread) v.word = "does not hold";
  return v;
}

std::string rule_text(const Claim& c) {
  const char* what = metric_words(c.metric);
  switch (c.kind) {
    case Claim::Kind::lower:
      return fmt::format("{}'s {} is lower than {}'s (margin: the difference of the {} means)", c.a, what, c.b,
                         c.sample);
    case Claim::Kind::lowest:
      return fmt::format("{}'s {} is the lowest of the table (margin: the smallest gap to another row's mean)", c.a,
                         what);
    case Claim::Kind::within_factor:
      return fmt::format("{}'s {} is within a factor of {:g} of {}'s (margin: log {:g} minus the log-distance of the "
                         "geometric means; spread in log units)",
                         c.a, what, c.threshold, c.b, c.threshold);
    case Claim::Kind::ratio_at_least:
      return fmt::format("{}'s {} over {}'s is at least {:g} (margin: the mean per-{} ratio minus {:g})", c.b, what,
                         c.a, c.threshold, c.sample, c.threshold);
  }
  return {};
}

}  // namespace lintra::experiments
