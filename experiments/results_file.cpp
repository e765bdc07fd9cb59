#include "experiments/results_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "bench/timer.h"
#include "core/error.h"
#include "core/threading.h"
#include "experiments/findings.h"
#include "experiments/plot.h"
#include "train/run_dir.h"

namespace lintra::experiments {

namespace {

std::string copy_rows(const TableRun& run) {
  std::string md = "| row | paper | final train loss | eval loss | eval accuracy | updates | sequences/s | train time (s) |\n";
  md += "|---|---|---|---|---|---|---|---|\n";
  for (const std::string& row : run.rows) {
    const RowResult& r = run.results.at(row);
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {:.1f} | {:.0f} |\n", row, run.spec->paper.at(row),
                      fmt_metric(r.last_train, "loss"), fmt_metric(r.last_eval, "loss"),
                      fmt_metric(r.last_eval, "accuracy", "{:.4f}"), r.steps, r.items_per_s, r.wall_time);
  }
  return md;
}

std::string speech_rows(const TableRun& run) {
  std::string md = "| row | paper PER (%) / time per epoch (s) | lintra dev PER (%) | best dev PER (%) | epochs | "
                   "time per epoch (s) | utterances/s | train time (s) |\n";
  md += "|---|---|---|---|---|---|---|---|\n";
  for (const std::string& row : run.rows) {
    const RowResult& r = run.results.at(row);
    double best = INFINITY;
    for (double v : r.eval_per) best = std::min(best, v);
    md += fmt::format("| {} | {} | {} | {} | {:.2f} | {:.1f} | {:.1f} | {:.0f} |\n", row, run.spec->paper.at(row),
                      r.last_eval.count("per") ? fmt::format("{:.2f}", 100 * r.last_eval.at("per")) : "—",
                      std::isfinite(best) ? fmt::format("{:.2f}", 100 * best) : "—", run.epochs.at(row),
                      run.epoch_seconds.at(row), r.items_per_s, r.wall_time);
  }
  return md;
}

std::string image_rows(const TableRun& run) {
  std::string md = "| row | paper bits/dim | lintra eval bits/dim | final train bits/dim | updates | training images/s | train time (s) |\n";
  md += "|---|---|---|---|---|---|---|\n";
  for (const std::string& row : run.rows) {
    const RowResult& r = run.results.at(row);
    md += fmt::format("| {} | {} | {} | {} | {} | {:.2f} | {:.0f} |\n", row, run.spec->paper.at(row),
                      fmt_metric(r.last_eval, "bits_per_dim"), fmt_metric(r.last_train, "bits_per_dim"), r.steps,
                      r.items_per_s, r.wall_time);
  }
  return md;
}

std::string findings(const TableRun& run) {
  if (run.spec->kind == "copy") return copy_findings(run.results);
  if (run.spec->kind == "speech") return speech_findings(run.results, run.epoch_seconds);
  return image_findings(run.results);
}

// Figure 2 / training curves: training loss against updates on a log axis, evaluation as markers.
std::string loss_figure(const TableRun& run, const std::string& results_dir) {
  std::vector<Series> series;
  for (size_t i = 0; i < run.rows.size(); ++i) {
    const RowResult& r = run.results.at(run.rows[i]);
    Series t{run.rows[i] + " (train)", r.train_steps, r.train_loss};
    t.color = int(i);
    series.push_back(t);
    Series e{"", r.eval_steps, r.eval_loss};
    e.line = false;
    e.markers = true;
    e.color = int(i);
    series.push_back(e);
  }
  const std::string stem = fmt::format("{}-{}-loss", run.spec->name, run.scale);
  write_line_plot(series,
                  {.title = fmt::format("{}: training loss (lines) and evaluation loss (dots)", run.spec->name),
                   .x_label = "updates",
                   .y_label = run.spec->kind == "copy" ? "cross entropy (nats)" : "nats per sub-pixel",
                   .log_y = true},
                  results_dir + "/" + stem);
  return fmt::format("\n![training loss]({0}.png) ([SVG]({0}.svg))\n", stem);
}

// The paper's Figure 5(c): validation PER against wall-clock time.
std::string per_figure(const TableRun& run, const std::string& results_dir) {
  std::vector<Series> series;
  for (size_t i = 0; i < run.rows.size(); ++i) {
    const RowResult& r = run.results.at(run.rows[i]);
    std::vector<double> per_pct;
    for (double v : r.eval_per) per_pct.push_back(100 * v);
    Series t{run.rows[i], r.eval_wall, per_pct};
    t.color = int(i);
    t.markers = true;
    series.push_back(t);
  }
  const std::string stem = fmt::format("{}-{}-per-vs-time", run.spec->name, run.scale);
  write_line_plot(series,
                  {.title = "speech: dev phone error rate against training wall time (the paper's Figure 5c)",
                   .x_label = "training wall time (s)",
                   .y_label = "dev PER (%)",
                   .log_y = false},
                  results_dir + "/" + stem);
  return fmt::format("\n![dev PER against wall time]({0}.png) ([SVG]({0}.svg))\n", stem);
}

std::string commands_and_machine(const TableRun& run) {
  std::string md = "\n## Commands\n\n```\n";
  for (const std::string& row : run.rows) md += run.results.at(row).command + "\n";
  md += "```\n\n## Machine\n\n";
  md += fmt::format("- CPU: {} ({} threads)\n- build: {} (lintra {})\n- git revision: {}\n- wall time of this "
                    "command: {:.0f} s (training the rows not yet complete{}; complete rows are "
                    "read, not retrained)\n- date: {}\n",
                    bench::cpu_model(), num_threads(), LINTRA_BUILD_TYPE, LINTRA_VERSION, bench::git_revision(),
                    run.wall_seconds, run.grids.empty() ? "" : " and sampling the image grids",
                    train::utc_timestamp());
  return md;
}

}  // namespace

std::string results_markdown(const TableRun& run, const std::string& results_dir) {
  const TableSpec& spec = *run.spec;
  std::string md = fmt::format("# {} — scale `{}`\n\n", spec.title, run.scale);
  md += fmt::format("Produced by `lintra reproduce {} --scale {}{}`; numbers are read from each row's "
                    "metrics.jsonl and never edited by hand. {}\n\n",
                    spec.name, run.scale, run.rows_option.empty() ? "" : fmt::format(" --rows {}", run.rows_option),
                    spec.paper_note);
  md += spec.kind == "copy" ? copy_rows(run) : spec.kind == "speech" ? speech_rows(run) : image_rows(run);
  if (!run.data_note.empty()) md += "\n" + run.data_note + "\n";
  md += "\n## The paper's findings at this scale\n\n" + findings(run);
  md += loss_figure(run, results_dir);
  if (spec.kind == "speech") md += per_figure(run, results_dir);
  if (!run.grids.empty()) {
    md += "\n## Generated samples (one grid per row, from its final checkpoint; `lintra sample`)\n\n";
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
