// metrics_file.h — the lines of a run's metrics.jsonl (DESIGN.md §6), and keeping it consistent with
// the checkpoint a run resumes from.
//
// A line is one JSON object: step and epoch first (integers), then the split ("train", "eval"), then
// the metrics in name order; a value that is not finite is written as null.
//
// When a run resumes at step S, every line past S was written by a process whose later updates are
// lost (it died before its next checkpoint) and will be written again by the resumed run, with other
// values (other data order, other timings). drop_metrics_after removes them, so that each (split,
// step) is written once: plots and averages count every step once.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace lintra::train {

std::string metrics_line(const std::string& split, const std::map<std::string, double>& values);

struct MetricsTrim {
  int64_t kept = 0;
  int64_t dropped = 0;     // step past the resumed one, or an earlier copy of a (split, step) kept later
  int64_t unreadable = 0;  // not a JSON object with a step (a line torn by a kill)
};

// Rewrites `path` keeping, in order, the lines whose step is <= `step`; of lines with the same split
// and step, only the last (the one the resumed lineage wrote). Atomic: the kept lines go to
// <path>.tmp, which is fsynced and renamed over `path`. A missing file is left missing.
MetricsTrim drop_metrics_after(const std::string& path, int64_t step);

}  // namespace lintra::train
