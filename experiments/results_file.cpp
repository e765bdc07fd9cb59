#include "experiments/results_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "bench/timer.h"
#include "core/error.h"
#include "core/threading.h"
#include "experiments/machine_load.h"
#include "experiments/plot.h"
#include "train/run_dir.h"

namespace lintra::experiments {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double value_of(const std::map<std::string, double>& m, const char* key) {
  auto it = m.find(key);
  return it == m.end() ? kNaN : it->second;
}

// "1.534 (1.521–1.547)": the mean over seeds and their range; "—" when a run lacks the metric.
std::string over_seeds(const TableRun& run, const std::string& row, const std::string& metric, double scale = 1,
                       const char* f = "{:.4f}") {
  std::vector<double> xs;
  for (const SeedRun& s : run.runs.at(row)) xs.push_back(row_metric(s, metric) * scale);
  if (xs.empty() || std::any_of(xs.begin(), xs.end(), [](double x) { return !std::isfinite(x); })) return "—";
  double mean = 0;
  for (double x : xs) mean += x / double(xs.size());
  const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
  if (xs.size() == 1) return fmt::format(fmt::runtime(f), mean);
  return fmt::format("{} ({}–{})", fmt::format(fmt::runtime(f), mean), fmt::format(fmt::runtime(f), *lo),
                     fmt::format(fmt::runtime(f), *hi));
}

// Whether other work took the machine while a row's seeds trained: the busiest seed speaks.
std::string machine_of(const TableRun& run, const std::string& row) {
  double worst = -1;
  for (const SeedRun& s : run.runs.at(row)) worst = std::max(worst, s.other_share);
  return load_note(worst);
}

std::string copy_rows(const TableRun& run) {
  std::string md = "| row | paper | final train loss | eval loss | eval accuracy | updates | sequences/s | "
                   "train time (s) | eval + checkpoints (s) | machine |\n|---|---|---|---|---|---|---|---|---|---|\n";
  for (const std::string& row : run.rows)
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", row, run.spec->paper.at(row),
                      over_seeds(run, row, "train_loss"), over_seeds(run, row, "eval_loss"),
                      over_seeds(run, row, "accuracy"), over_seeds(run, row, "updates", 1, "{:.0f}"),
                      over_seeds(run, row, "items_per_s", 1, "{:.1f}"), over_seeds(run, row, "train_seconds", 1, "{:.0f}"),
                      over_seeds(run, row, "overhead_seconds", 1, "{:.0f}"), machine_of(run, row));
  return md;
}

std::string speech_rows(const TableRun& run) {
  std::string md = "| row | paper PER (%) / time per epoch (s) | lintra dev PER (%) | epochs | time per epoch (s) | "
                   "utterances/s | train time (s) | eval + checkpoints (s) | machine |\n"
                   "|---|---|---|---|---|---|---|---|---|\n";
  for (const std::string& row : run.rows)
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", row, run.spec->paper.at(row),
                      over_seeds(run, row, "per", 100, "{:.2f}"), over_seeds(run, row, "epochs", 1, "{:.2f}"),
                      over_seeds(run, row, "epoch_seconds", 1, "{:.1f}"), over_seeds(run, row, "items_per_s", 1, "{:.1f}"),
                      over_seeds(run, row, "train_seconds", 1, "{:.0f}"), over_seeds(run, row, "overhead_seconds", 1, "{:.0f}"),
                      machine_of(run, row));
  return md;
}

std::string image_rows(const TableRun& run) {
  std::string md = "| row | paper bits/dim | lintra eval bits/dim | final train bits/dim | updates | epochs | "
                   "training images/s | train time (s) | eval + checkpoints (s) | machine |\n"
                   "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const std::string& row : run.rows)
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", row, run.spec->paper.at(row),
                      over_seeds(run, row, "bits_per_dim"), over_seeds(run, row, "train_bits_per_dim"),
                      over_seeds(run, row, "updates", 1, "{:.0f}"), over_seeds(run, row, "epochs", 1, "{:.3f}"),
                      over_seeds(run, row, "items_per_s", 1, "{:.2f}"), over_seeds(run, row, "train_seconds", 1, "{:.0f}"),
                      over_seeds(run, row, "overhead_seconds", 1, "{:.0f}"), machine_of(run, row));
  return md;
}

// Each claim: the paper's words, the rule, the numbers, and the verdict computed from them.
std::string claims_section(const TableRun& run) {
  std::string md = fmt::format(
      "\n## The paper's claims, checked\n\nEach row was trained with {} seed{} ({}). A claim **holds** or **does "
      "not hold** only when its margin exceeds the seed spread (the largest max − min over the seeds of the rows "
      "it compares); otherwise it is **inconclusive at this budget**.\n\n",
      run.seeds.size(), run.seeds.size() == 1 ? "" : "s", fmt::join(run.seeds, ", "));
  for (const Claim& c : run.spec->claims) {
    const Verdict v = judge(c, seed_values(run, c.metric));
    md += fmt::format("- {} — **{}**.\n  Rule: {}. Runs: {}; margin {:.4g}, seed spread {:.4g}.\n", c.quote, v.word,
                      rule_text(c), v.evidence, v.margin, v.spread);
  }
  return md;
}

// Training loss against updates on a log axis, evaluation as markers; one colour per row, every seed drawn.
std::string loss_figure(const TableRun& run, const std::string& results_dir) {
  std::vector<Series> series;
  for (size_t i = 0; i < run.rows.size(); ++i) {
    for (const SeedRun& s : run.runs.at(run.rows[i])) {
      const bool first = &s == &run.runs.at(run.rows[i]).front();
      Series t{first ? run.rows[i] + " (train)" : "", s.result.train_steps, s.result.train_loss};
      t.color = int(i);
      series.push_back(t);
      Series e{"", s.result.eval_steps, s.result.eval_loss};
      e.line = false;
      e.markers = true;
      e.color = int(i);
      series.push_back(e);
    }
  }
  const std::string stem = fmt::format("{}-{}-loss", run.spec->name, run.scale);
  write_line_plot(series,
                  {.title = fmt::format("{}: training loss (lines) and evaluation loss (dots), every seed",
                                        run.spec->name),
                   .x_label = "updates",
                   .y_label = run.spec->kind == "copy" ? "cross entropy (nats)" : "nats per item",
                   .log_y = true},
                  results_dir + "/" + stem);
  return fmt::format("\n![training loss]({0}.png) ([SVG]({0}.svg))\n", stem);
}

// The paper's Figure 5(c): validation PER against training time.
std::string per_figure(const TableRun& run, const std::string& results_dir) {
  std::vector<Series> series;
  for (size_t i = 0; i < run.rows.size(); ++i) {
    for (const SeedRun& s : run.runs.at(run.rows[i])) {
      std::vector<double> per_pct;
      for (double v : s.result.eval_per) per_pct.push_back(100 * v);
      Series t{&s == &run.runs.at(run.rows[i]).front() ? run.rows[i] : "", s.result.eval_time, per_pct};
      t.color = int(i);
      t.markers = true;
      series.push_back(t);
    }
  }
  const std::string stem = fmt::format("{}-{}-per-vs-time", run.spec->name, run.scale);
  write_line_plot(series,
                  {.title = "speech: dev phone error rate against training time (the paper's Figure 5c), every seed",
                   .x_label = "training time (s)",
                   .y_label = "dev PER (%)",
                   .log_y = false},
                  results_dir + "/" + stem);
  return fmt::format("\n![dev PER against training time]({0}.png) ([SVG]({0}.svg))\n", stem);
}

std::string commands_and_machine(const TableRun& run) {
  std::string md = "\n## Commands\n\n```\n";
  for (const std::string& row : run.rows)
    for (const SeedRun& s : run.runs.at(row)) md += s.result.command + "\n";
  md += "```\n\n## Machine\n\n";
  md += fmt::format("- CPU: {} ({} threads)\n- build: {} (lintra {})\n- git revision: {}\n- wall time of this "
                    "command: {:.0f} s (training the runs not yet complete{}; complete runs are "
                    "read, not retrained)\n- date: {}\n",
                    bench::cpu_model(), num_threads(), LINTRA_BUILD_TYPE, LINTRA_VERSION, bench::git_revision(),
                    run.wall_seconds, run.grids.empty() ? "" : " and sampling the image grids",
                    train::utc_timestamp());
  return md;
}

}  // namespace

double row_metric(const SeedRun& s, const std::string& metric) {
  const RowResult& r = s.result;
  if (metric == "eval_loss") return value_of(r.last_eval, "loss");
  if (metric == "bits_per_dim" || metric == "per" || metric == "accuracy") return value_of(r.last_eval, metric.c_str());
  if (metric == "train_loss") return value_of(r.last_train, "loss");
  if (metric == "train_bits_per_dim") return value_of(r.last_train, "bits_per_dim");
  if (metric == "epochs") return s.epochs;
  if (metric == "epoch_seconds") return s.epoch_seconds;
  if (metric == "updates") return double(r.steps);
  if (metric == "items_per_s") return s.items_per_s;
  if (metric == "train_seconds") return r.train_time;
  if (metric == "overhead_seconds") return r.wall_time - r.train_time;
  LINTRA_FAIL("reproduce: unknown row metric '{}'", metric);
}

SeedValues seed_values(const TableRun& run, const std::string& metric) {
  SeedValues v;
  for (const std::string& row : run.rows)
    for (const SeedRun& s : run.runs.at(row)) v[row].push_back(row_metric(s, metric));
  return v;
}

std::string results_markdown(const TableRun& run, const std::string& results_dir) {
  const TableSpec& spec = *run.spec;
  std::string md = fmt::format("# {} — scale `{}`\n\n", spec.title, run.scale);
  md += fmt::format("Produced by `lintra reproduce {} --scale {}{}`; numbers are read from each run's "
                    "metrics.jsonl and never edited by hand. Each cell is the mean over the seeds with their range "
                    "in brackets. Train time counts the updates alone; evaluation and checkpoints are timed apart. A row \"busy\" in the "
                    "machine column trained while other work took more than {:.0f}% of the CPU: its speed is not lintra's. {}\n\n",
                    spec.name, run.scale, run.rows_option.empty() ? "" : fmt::format(" --rows {}", run.rows_option),
                    100 * kBusyShare, spec.paper_note);
  md += spec.kind == "copy" ? copy_rows(run) : spec.kind == "speech" ? speech_rows(run) : image_rows(run);
  if (!run.data_note.empty()) md += "\n" + run.data_note + "\n";
  md += claims_section(run);
  md += loss_figure(run, results_dir);
  if (spec.kind == "speech") md += per_figure(run, results_dir);
  if (!run.grids.empty()) {
    md += "\n## Generated samples (one grid per row, from its first seed's final checkpoint; `lintra sample`)\n\n";
    for (const std::string& row : run.rows) md += fmt::format("- {}: ![{} samples]({})\n", row, row, run.grids.at(row));
  }
  return md + commands_and_machine(run);
}

void write_results_file(const std::string& results_dir, const std::string& name, const std::string& md) {
  std::filesystem::create_directories(results_dir);
  const std::string out = results_dir + "/" + name;
  std::ofstream f(out);
  f << md;
  LINTRA_CHECK(f.good(), "reproduce: cannot write {}", out);
  fmt::print("\n{}\nwrote {}\n", md, out);
}

}  // namespace lintra::experiments
