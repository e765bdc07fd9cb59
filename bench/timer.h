// timer.h — side-by-side timing for `lintra bench`: runs two candidates alternately
// (A B A B …, so machine noise hits both alike) after a warm-up, and keeps each one's best time.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.h"

namespace lintra::bench {

struct PairTiming {
  double a_seconds = 0;  // best time of one call of a
  double b_seconds = 0;
  int repeats = 0;
};

// Times a and b alternately for at least min_seconds in total (and at least 3 repeats each).
PairTiming time_pair(const std::function<void()>& a, const std::function<void()>& b, double min_seconds = 1.0);

// Best time of f over repeats for at least min_seconds (at least 3 repeats).
double time_best(const std::function<void()>& f, double min_seconds = 1.0);

// Waits for the work queued on t's GPU before now by reading one element of t back to the host (a copy
// queued after everything before it on the device's one stream); nothing on the CPU or for an empty t.
// Every timed call of a bench on a device ends with it.
void wait_for_device(const Tensor& t);

std::string cpu_model();  // from /proc/cpuinfo

// The kernels OpenBLAS runs ("Haswell", "SkylakeX", "Cooperlake", …): OpenBLAS picks them from the CPU
// when it is loaded, or takes OPENBLAS_CORETYPE from the environment (app/main.cpp sets it when the
// user has not), so the sgemm yardstick of a bench depends on it.
std::string blas_core();

// "" when OpenBLAS runs the kernels lintra picks for this CPU (core/openblas_core.h); otherwise
// what the header should say of it, e.g. "OPENBLAS_CORETYPE=Haswell from the environment; lintra's
// pick here: Cooperlake" — an sgemm yardstick then measures kernels the CPU could outrun.
std::string blas_core_note();
// The same from its parts (the running kernels, lintra's pick or null, OPENBLAS_CORETYPE or null),
// compared without regard to case.
std::string blas_core_note(std::string_view running, const char* pick, const char* env);

// "2 threads, load average 0.12 0.30 0.41, AMD EPYC, SIMD target AVX2, OpenBLAS Haswell" for the header
// of every bench table: the CPU, the instruction set its kernels dispatch to (core/simd.h) and the
// BLAS kernels, with blas_core_note() in brackets when it has one.
std::string machine_line();

// The working tree's git revision for results files: "488b7b5", "488b7b5 (with uncommitted changes)",
// or "unknown" outside a git checkout. Changes under experiments/results/ (results files being
// rewritten) do not count as uncommitted changes.
std::string git_revision();

// Writes a benchmark's rows (a JSON array) to path and says so; throws naming the bench and file.
void write_bench_json(const std::string& path, const nlohmann::ordered_json& rows, const char* bench);
// The same for benchmark rows: one JSON object per row (to_json(row)); nothing when path is empty.
template <typename Row, typename ToJson>
void write_bench_rows(const std::string& path, const std::vector<Row>& rows, ToJson to_json, const char* bench) {
  if (path.empty()) return;
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& r : rows) out.push_back(to_json(r));
  write_bench_json(path, out, bench);
}

}  // namespace lintra::bench
