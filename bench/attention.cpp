#include "bench/attention.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "autograd/var.h"
#include "core/allocator.h"
#include "core/device.h"
#include "core/threading.h"
#include "nn/attention/registry.h"
#include "bench/timer.h"

namespace lintra::bench {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// "reformer:rounds=1:chunk_size=32" → ("reformer", {rounds: 1, chunk_size: 32}). Values that read
// as integers become int64, then reals, then true/false, else strings; the registry checks them.
std::pair<std::string, nn::ParamMap> parse_variant(const std::string& spec) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t pos; (pos = spec.find(':', start)) != std::string::npos; start = pos + 1)
    parts.push_back(spec.substr(start, pos - start));
  parts.push_back(spec.substr(start));
  nn::ParamMap params;
  for (size_t i = 1; i < parts.size(); ++i) {
    const auto eq = parts[i].find('=');
    LINTRA_CHECK(eq != std::string::npos && eq > 0,
                 "bench attention: variant '{}': expected name:key=value[:key=value…], got '{}'", spec, parts[i]);
    const std::string key = parts[i].substr(0, eq), text = parts[i].substr(eq + 1);
    char* end = nullptr;
    const long long as_int = std::strtoll(text.c_str(), &end, 10);
    if (!text.empty() && *end == '\0') {
      params[key] = int64_t(as_int);
      continue;
    }
    const double as_real = std::strtod(text.c_str(), &end);
    if (!text.empty() && *end == '\0') params[key] = as_real;
    else if (text == "true" || text == "false") params[key] = text == "true";
    else params[key] = text;
  }
  return {parts[0], params};
}

struct Measurement {
  double seconds = 0;  // best call
  double peak_bytes = 0;  // above what was live before the call
};

// One forward + backward of `attn` on fresh leaves over q, k, v (on their device); grads die with the
// leaves. On a GPU the call waits for the device by reading one element of q's gradient back.
Measurement measure(nn::InnerAttention& attn, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& g,
                    const nn::AttentionMasks& masks, double min_seconds) {
  auto call = [&] {
    Var qv(q, true), kv(k, true), vv(v, true);
    Var out = attn.forward(qv, kv, vv, masks);
    out.backward(g);
    wait_for_device(qv.grad());
  };
  Allocator& alloc = allocator_for(q.device());
  const int64_t before = alloc.stats().in_use_bytes;
  alloc.reset_peak();
  call();  // also the warm-up: fills the allocator's cache, pages memory in
  Measurement m;
  m.peak_bytes = double(alloc.stats().peak_bytes - before);
  m.seconds = std::numeric_limits<double>::infinity();
  double total = 0;
  for (int r = 0; r < 1000 && (r < 3 || total < min_seconds); ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    call();
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    m.seconds = std::min(m.seconds, t);
    total += t;
  }
  return m;
}

nlohmann::ordered_json row_json(const AttentionBenchRow& r) {
  nlohmann::ordered_json j;
  j["variant"] = r.variant;
  j["device"] = r.device;
  j["n"] = r.n;
  j["batch"] = r.batch;
  j["heads"] = r.heads;
  j["dim"] = r.dim;
  j["causal"] = r.causal;
  j["ms_per_sample"] = r.skipped ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.ms_per_sample);
  j["mb_per_sample"] = r.skipped ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.mb_per_sample);
  j["skipped"] = r.skipped;
  return j;
}

void print_row(const AttentionBenchRow& r, const AttentionBenchRow* prev) {
  if (r.skipped) {
    fmt::print("{:<24} {:>6} {:>4} {:>7} {:>12} {:>12} {:>7} {:>7}  skipped: {}\n", r.variant, r.n, r.batch,
               r.causal ? "causal" : "full", "-", "-", "", "", r.note);
  } else {
    const bool g = prev && !prev->skipped;
    fmt::print("{:<24} {:>6} {:>4} {:>7} {:>12.3f} {:>12.2f} {:>7} {:>7}\n", r.variant, r.n, r.batch,
               r.causal ? "causal" : "full", r.ms_per_sample, r.mb_per_sample,
               g ? fmt::format("{:.2f}", r.ms_per_sample / prev->ms_per_sample) : "",
               g ? fmt::format("{:.2f}", r.mb_per_sample / prev->mb_per_sample) : "");
  }
  std::fflush(stdout);
}

}  // namespace

namespace {

void print_header(const AttentionBenchOptions& opt) {
  fmt::print("lintra bench attention — {}, device {}\n", machine_line(), opt.device);
  fmt::print("inner attention forward + backward (grads of q, k, v) on synthetic N(0,1) inputs; H={}, E=M={}, "
             "attention dropout 0, {} mask where accepted\n",
             opt.heads, opt.dim, opt.causal ? "causal" : "full");
  fmt::print("B = max(1, {} / N); ms and MB per sample = best call / B and (peak live bytes − inputs) / B; "
             "memory cap {:g} MB (predicted sizes above it are skipped)\n",
             opt.tokens, opt.memory_cap_mb);
  fmt::print("t× and m× = growth of time and memory per sample against the previous N\n\n");
  fmt::print("{:<24} {:>6} {:>4} {:>7} {:>12} {:>12} {:>7} {:>7}\n", "variant", "N", "B", "mask", "ms/sample",
             "MB/sample", "t×", "m×");
}

// The variant of `spec` with attention dropout 0 (where it has the parameter), or the error.
std::shared_ptr<nn::InnerAttention> create_variant(const std::string& spec, const AttentionBenchOptions& opt,
                                                   std::string& error) {
  const nn::AttentionRegistry& registry = nn::builtin_attention_registry();
  try {
    auto [name, params] = parse_variant(spec);
    const auto& entry = registry.entry(name);
    for (const auto& [pname, pspec] : entry.params)
      if (pname == "attention_dropout" && !params.count(pname)) params[pname] = 0.0;
    return registry.create(name, params,
                           nn::AttentionContext{.query_dim = opt.dim, .value_dim = opt.dim, .n_heads = opt.heads,
                                                .generator = Generator(7, 1)});
  } catch (const Error& e) {
    error = e.what();
    return nullptr;
  }
}

// Predicted bytes per sample at N: the last measurement × the observed growth per doubling (at
// least 2×); softmax: at least 3·H·N²·4 (scores, probabilities, their gradient).
double predicted_bytes_per_sample(const std::vector<AttentionBenchRow>& mine, const std::string& variant, int64_t N,
                                  int64_t H) {
  double predicted = 0;
  std::vector<const AttentionBenchRow*> measured;
  for (const auto& m : mine)
    if (!m.skipped) measured.push_back(&m);
  if (!measured.empty()) {
    const AttentionBenchRow& last = *measured.back();
    double growth = 2.0;
    if (measured.size() >= 2) growth = std::max(2.0, last.mb_per_sample / measured[measured.size() - 2]->mb_per_sample);
    predicted = last.mb_per_sample * kMiB * std::pow(growth, std::log2(double(N) / double(last.n)));
  }
  if (variant == "softmax") predicted = std::max(predicted, 3.0 * double(H) * double(N) * double(N) * 4);
  return predicted;
}

// Times one (variant, N) row unless its predicted memory is over the cap; a failure sets `error`.
void measure_row(nn::InnerAttention& attn, const nn::AttentionMasks& masks, const AttentionBenchOptions& opt,
                 const std::vector<AttentionBenchRow>& mine, AttentionBenchRow& r, std::string& error) {
  const int64_t B = r.batch, H = opt.heads, N = r.n, E = opt.dim;
  const double inputs = 4.0 * double(B * H * N * E) * 4;
  const double total = predicted_bytes_per_sample(mine, attn.variant(), N, H) * double(B) + inputs;
  if (total > opt.memory_cap_mb * kMiB) {
    r.skipped = true;
    r.note = fmt::format("predicted {:.0f} MB > cap {:g} MB", total / kMiB, opt.memory_cap_mb);
    return;
  }
  try {
    Generator gen(11, uint64_t(N));
    const Device dev = Device::parse(opt.device);
    auto normal = [&] { return Tensor::normal({B, H, N, E}, gen).to(dev); };  // the CPU's numbers on every device
    const Tensor q = normal(), k = normal(), v = normal(), g = normal();
    const Measurement m = measure(attn, q, k, v, g, masks, opt.min_seconds);
    r.ms_per_sample = m.seconds * 1e3 / double(B);
    r.mb_per_sample = m.peak_bytes / kMiB / double(B);
  } catch (const Error& e) {
    error = e.what();
    r.skipped = true;
    r.note = fmt::format("failed: {}", error);
  }
}

// Every N of one variant, printed as they are measured.
std::vector<AttentionBenchRow> sweep_variant(const std::string& spec, const AttentionBenchOptions& opt) {
  std::string error;
  std::shared_ptr<nn::InnerAttention> attn = create_variant(spec, opt, error);
  nn::MaskSupport support = attn ? attn->mask_support() : nn::MaskSupport{};
  const bool causal = attn && ((opt.causal && support.causal) || !support.full);
  const nn::AttentionMasks masks = causal ? nn::AttentionMasks::causal() : nn::AttentionMasks::full();
  std::vector<AttentionBenchRow> mine;  // in N order
  for (int64_t N = opt.min_n; N <= opt.max_n; N *= 2) {
    AttentionBenchRow r{spec, opt.device, N, std::max<int64_t>(1, opt.tokens / N), opt.heads, opt.dim, causal};
    if (!error.empty()) {
      r.skipped = true;
      r.note = mine.empty() ? fmt::format("failed: {}", error) : "after the failure above";
    } else {
      measure_row(*attn, masks, opt, mine, r, error);
    }
    print_row(r, mine.empty() ? nullptr : &mine.back());
    mine.push_back(r);
  }
  return mine;
}

}  // namespace

std::vector<AttentionBenchRow> run_attention_benchmark(const AttentionBenchOptions& opt) {
  LINTRA_CHECK(opt.min_n >= 1 && opt.max_n >= opt.min_n && opt.heads >= 1 && opt.dim >= 1 && opt.tokens >= 1,
               "bench attention: need 1 <= min_n <= max_n, heads, dim, tokens >= 1; got min_n={} max_n={} heads={} "
               "dim={} tokens={}",
               opt.min_n, opt.max_n, opt.heads, opt.dim, opt.tokens);
  check_device_available(Device::parse(opt.device));  // a missing GPU fails before any row
  const std::vector<std::string> variants =
      opt.variants.empty() ? nn::builtin_attention_registry().names() : opt.variants;
  print_header(opt);
  std::vector<AttentionBenchRow> rows;
  for (const std::string& spec : variants) {
    std::vector<AttentionBenchRow> mine = sweep_variant(spec, opt);
    rows.insert(rows.end(), mine.begin(), mine.end());
  }
  write_bench_rows(opt.json_path, rows, row_json, "attention");
  return rows;
}


}  // namespace lintra::bench
