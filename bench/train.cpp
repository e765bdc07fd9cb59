#include "bench/train.h"

#include <cblas.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "core/allocator.h"
#include "core/kernels.h"
#include "core/simd.h"
#include "core/threading.h"
#include "train/experiment_config.h"
#include "train/factories.h"
#include "bench/cuda_reference.h"
#include "bench/timer.h"

namespace lintra::bench {

namespace {

using Clock = std::chrono::steady_clock;

// The paper's config row of a variant (configs/<shape>/paper/<row>.yaml).
std::string config_row(const std::string& variant) {
  if (variant == "causal-linear") return "linear";
  LINTRA_CHECK(std::find(kTrainVariants.begin(), kTrainVariants.end(), variant) != kTrainVariants.end(),
               "bench train: unknown variant '{}' (valid: {})", variant, fmt::join(kTrainVariants, ", "));
  return variant;
}

Config row_config(const TrainBenchOptions& o, const std::string& shape, const std::string& variant,
                  std::vector<std::string> extra = {}) {
  LINTRA_CHECK(std::find(kTrainShapes.begin(), kTrainShapes.end(), shape) != kTrainShapes.end(),
               "bench train: unknown shape '{}' (valid: {})", shape, fmt::join(kTrainShapes, ", "));
  // The batches for every variant (10 for MNIST, 4 for CIFAR-10), so that steps compare; the
  // paper's CIFAR-10 softmax config says 1 (its GPU memory limit).
  std::vector<std::string> overrides = {fmt::format("data.batch_size={}", shape == "mnist" ? 10 : 4)};
  if (o.smoke) {
    overrides = {"model.layers=1", "model.heads=2", "model.d_query=4", "data.batch_size=2"};
    if (variant.rfind("lsh", 0) == 0) overrides.push_back("model.attention.chunk_size=4");
  }
  overrides.push_back("device=" + o.device);
  overrides.push_back("matmul_precision=" + o.matmul_precision);
  overrides.insert(overrides.end(), extra.begin(), extra.end());
  return train::load_experiment_config({fmt::format("{}/{}/paper/{}.yaml", o.configs_dir, shape, config_row(variant))},
                                       overrides);
}

// The model's sizes, as the FLOP count and the sgemm yardstick need them.
struct Sizes {
  int64_t B, N, layers, heads, E, d, d_ff, mixtures;
};

// model.d_ff = 0 means 4 · d_model, as the model factory reads it (train/factories.cpp).
Sizes sizes_of(const Config& cfg, int64_t length) {
  const int64_t heads = cfg.get_int("model.heads"), E = cfg.get_int("model.d_query"), d = heads * E;
  const int64_t d_ff = cfg.get_int("model.d_ff") == 0 ? 4 * d : cfg.get_int("model.d_ff");
  return {cfg.get_int("data.batch_size"), length - 1, cfg.get_int("model.layers"), heads, E, d, d_ff,
          cfg.get_int("model.mixtures")};
}

// Multiply-adds of one sample's attention over all heads, as the variant computes it.
double attention_macs(const Sizes& s, const Config& cfg) {
  const double N = double(s.N), H = double(s.heads), E = double(s.E);
  const std::string type = cfg.get_string("model.attention.type");
  if (type == "softmax") return H * 2 * N * N * E;  // QKᵀ and A·V, the full N×N
  if (type == "causal-linear") return H * 2 * N * E * E;  // state updates and reads (E = M)
  const double rounds = double(cfg.get_int("model.attention.rounds"));
  const double C = double(std::min<int64_t>(cfg.get_int("model.attention.chunk_size"), s.N));
  const double window = C < N ? 2 * C : C;
  const double bits = double(cfg.get_int("model.attention.bits"));
  return H * rounds * (N * E * bits + 2 * N * window * E);  // hashing, then logits and values
}

// The step's useful GFLOP: 3× the forward's multiply-adds × 2.
double model_gflop(const Sizes& s, const Config& cfg) {
  const double N = double(s.N), d = double(s.d);
  const double per_layer = N * (4 * d * d + 2 * d * double(s.d_ff)) + attention_macs(s, cfg);
  const double head = N * d * 3 * double(s.mixtures);
  return 3.0 * 2.0 * double(s.B) * (double(s.layers) * per_layer + head) / 1e9;
}

// GFLOP/s at the model's GEMM shapes, weighted as one layer uses them (4 of d × d, one each of d × d_ff
// and d_ff × d): `seconds(K, N)` times one (B·N × K)·(K × N) product.
double layer_gemm_rate(const Sizes& s, const std::function<double(int64_t K, int64_t N)>& seconds) {
  const double total = 4 * seconds(s.d, s.d) + seconds(s.d, s.d_ff) + seconds(s.d_ff, s.d);
  return 2.0 * double(s.B * s.N) * (4.0 * double(s.d * s.d) + 2.0 * double(s.d * s.d_ff)) / total / 1e9;
}

// cblas_sgemm at the model's shapes, at the thread count of the run.
double sgemm_rate(const Sizes& s) {
  const int64_t rows = s.B * s.N, widest = std::max(s.d, s.d_ff);
  Generator gen(9);
  Tensor x = Tensor::uniform({rows, widest}, gen, -1, 1), w = Tensor::uniform({widest, widest}, gen, -1, 1);
  Tensor y = Tensor::empty({rows, widest});
  return layer_gemm_rate(s, [&](int64_t K, int64_t N) {
    return time_best(
        [&] {
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(rows), int(N), int(K), 1.0f, x.data<float>(),
                      int(K), w.data<float>(), int(N), 0.0f, y.data<float>(), int(N));
        },
        0.3);
  });
}

// cuBLAS on `device`, called directly (bench/cuda_reference.h: nothing of lintra between the timer and
// the library, 20 products a wait).
double device_gemm_rate(const Sizes& s, Device device) {
  constexpr int kCalls = 20;
  return layer_gemm_rate(s, [&](int64_t K, int64_t N) {
    const DirectCublas direct(device.index(), 1, s.B * s.N, K, N);
    return time_best([&] { direct.run(kCalls); }, 0.3) / kCalls;
  });
}

// lintra's matmul on `device` (the strict test device: its kernel table), the yardstick where there is
// no library to call directly.
double device_matmul_rate(const Sizes& s, Device device) {
  Generator gen(9);
  return layer_gemm_rate(s, [&](int64_t K, int64_t N) {
    const Tensor x = Tensor::uniform({s.B * s.N, K}, gen, -1, 1).to(device);
    const Tensor w = Tensor::uniform({K, N}, gen, -1, 1).to(device);
    Tensor y = Tensor::empty({s.B * s.N, N}, DType::f32, device);
    return time_best([&] { kernels::on(y).matmul(x, w, y, false); }, 0.3);
  });
}

// VmHWM (peak resident set) in MiB, after clear_refs reset it at the start of the row.
double peak_rss_mb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return double(std::stoll(line.substr(6))) / 1024.0;
  return 0;
}

void reset_peak_rss() {
  std::ofstream("/proc/self/clear_refs") << "5";
}

double seconds_of(const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) * 1e-6; }

// Random pixels (B, L) in [0, 255]: the step's cost does not depend on the data.
Tensor random_pixels(int64_t B, int64_t L, Generator& gen) {
  std::vector<int64_t> px(size_t(B * L));
  for (auto& p : px) p = gen.randint(0, 256);
  return Tensor::from_vector(px, {B, L});
}

// One training step as the trainer runs it (train/trainer.cpp): zero_grad, loss, backward, step.
struct Step {
  std::shared_ptr<nn::Model> model;
  std::unique_ptr<train::Optimizer> optimizer;
  nn::ModelBatch batch;
  void operator()() {
    optimizer->zero_grad();
    nn::ModelOutput out = model->loss(batch);
    out.loss.backward();
    optimizer->step();
    wait_for_device(out.loss.data());  // queued before this copy: the whole step
  }
};

Step make_step(const Config& cfg, int64_t length) {
  Step s;
  const Device device = train::experiment_device(cfg, /*check_available=*/true);
  train::apply_matmul_precision(cfg);
  s.model = train::build_model(cfg);
  s.model->to(device);
  s.model->train();
  std::vector<train::NamedParam> params;
  for (const auto& [name, v] : s.model->named_parameters()) params.push_back({name, v});
  s.optimizer = train::make_optimizer(params, train::optimizer_options(cfg));
  Generator gen(uint64_t(cfg.get_int("seed")));
  s.batch.inputs = random_pixels(cfg.get_int("data.batch_size"), length, gen);
  s.batch = s.batch.to(device);
  return s;
}

// Median seconds of `steps` timed steps after one warm-up, and the CPU seconds per timed step.
struct Timing {
  double step_s = 0, user_s = 0, sys_s = 0, cpu_exchanges = 0;
};

Timing time_steps(Step& step, int steps) {
  step();  // warm-up: the allocator's cache fills, pages fault in
  rusage r0{}, r1{};
  getrusage(RUSAGE_SELF, &r0);
  const int64_t exchanges0 = pinned_cpu_exchanges();
  std::vector<double> t;
  for (int i = 0; i < steps; ++i) {
    const auto t0 = Clock::now();
    step();
    t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  getrusage(RUSAGE_SELF, &r1);
  std::sort(t.begin(), t.end());
  return {t[t.size() / 2], (seconds_of(r1.ru_utime) - seconds_of(r0.ru_utime)) / steps,
          (seconds_of(r1.ru_stime) - seconds_of(r0.ru_stime)) / steps,
          double(pinned_cpu_exchanges() - exchanges0) / steps};
}

// Predicted bytes of one layer's activations kept for the backward and its temporaries: about 6
// tensors of B·H·N² for softmax (scores, probabilities, dropout mask and output, their gradients),
// about 24 of B·N·d otherwise.
double layer_bytes(const Sizes& s, const Config& cfg) {
  const double B = double(s.B), N = double(s.N);
  const double dense = 24.0 * B * N * double(std::max(s.d, s.d_ff)) * 4;
  if (cfg.get_string("model.attention.type") != "softmax") return dense;
  return dense + 6.0 * B * double(s.heads) * N * N * 4;
}

// The layers and batch to time: the row's own, or — when its predicted memory is over the cap — as
// many layers (then samples) as fit; the step time is then scaled up linearly in both.
std::pair<int64_t, int64_t> timed_size(const Sizes& s, const Config& cfg, double cap_mb) {
  const double per_layer_sample = layer_bytes(s, cfg) / double(s.B), cap = cap_mb * 1024 * 1024;
  int64_t layers = s.layers, batch = s.B;
  while (layers > 1 && double(layers * batch) * per_layer_sample > cap) --layers;
  while (batch > 1 && double(layers * batch) * per_layer_sample > cap) --batch;
  return {layers, batch};
}

TrainBenchRow run_row(const TrainBenchOptions& o, const std::string& shape, const std::string& variant) {
  const Config cfg = row_config(o, shape, variant);
  const int64_t length = o.smoke ? 24 : (shape == "mnist" ? 784 : 3072);
  const Sizes s = sizes_of(cfg, length);
  const auto [layers, batch] = timed_size(s, cfg, o.memory_cap_mb);
  const Device device = train::experiment_device(cfg, /*check_available=*/true);  // a missing GPU: its error, first
  auto yardstick = [&] {
    if (device.is_cpu()) return sgemm_rate(s);
    return device.is_cuda() ? device_gemm_rate(s, device) : device_matmul_rate(s, device);
  };
  const double sgemm_before = yardstick();  // its buffers go back to the OS with the cache, below
  CpuAllocator::instance().release_cached();
  reset_peak_rss();
  TrainBenchRow row{variant, shape, s.B, s.layers, length, o.steps};
  row.device = o.device;
  row.timed_layers = layers;
  row.timed_batch = batch;
  {
    const Config timed = layers == s.layers && batch == s.B
                             ? cfg
                             : row_config(o, shape, variant,
                                          {fmt::format("model.layers={}", layers), fmt::format("data.batch_size={}", batch)});
    Step step = make_step(timed, length);
    const Timing t = time_steps(step, o.steps);
    const double scale = double(s.layers * s.B) / double(layers * batch);
    row.step_s = t.step_s * scale;
    row.user_s = t.user_s * scale;
    row.sys_s = t.sys_s * scale;
    row.cpu_exchanges = t.cpu_exchanges * scale;
    if (scale != 1)
      row.note = fmt::format("predicted memory over {:g} MB: timed {} of {} layers at batch {} of {}, times scaled ×{:g}",
                             o.memory_cap_mb, layers, s.layers, batch, s.B, scale);
  }
  row.peak_rss_mb = peak_rss_mb();
  row.model_gflop = model_gflop(s, cfg);
  row.gflops_per_s = row.model_gflop / row.step_s;
  row.sgemm_before_gflops_per_s = sgemm_before;
  row.sgemm_after_gflops_per_s = yardstick();
  row.sgemm_gflops_per_s = std::max(row.sgemm_before_gflops_per_s, row.sgemm_after_gflops_per_s);
  return row;
}

nlohmann::ordered_json to_json(const TrainBenchRow& r) {
  return {{"variant", r.variant},
          {"shape", r.shape},
          {"batch", r.batch},
          {"layers", r.layers},
          {"length", r.length},
          {"steps", r.steps},
          {"step_s", r.step_s},
          {"model_gflop", r.model_gflop},
          {"gflops_per_s", r.gflops_per_s},
          {"sgemm_gflops_per_s", r.sgemm_gflops_per_s},
          {"sgemm_before_gflops_per_s", r.sgemm_before_gflops_per_s},
          {"sgemm_after_gflops_per_s", r.sgemm_after_gflops_per_s},
          {"peak_rss_mb", r.peak_rss_mb},
          {"user_s", r.user_s},
          {"sys_s", r.sys_s},
          {"cpu", cpu_model()},
          {"simd_target", simd_target()},
          {"blas_core", blas_core()},
          {"blas_core_note", blas_core_note()},
          {"threads", num_threads()},
          {"threads_pinned", threads_pinned()},
          {"cpu_exchanges", r.cpu_exchanges},
          {"matmul_precision", matmul_precision_name(matmul_precision())},
          {"device", r.device},
          {"timed_layers", r.timed_layers},
          {"timed_batch", r.timed_batch},
          {"note", r.note}};
}

void print_row(const TrainBenchRow& r) {
  fmt::print("{:<14} {:<8} {:>5} {:>9.3f} {:>10.1f} {:>9.1f} {:>9.1f} {:>6.2f} {:>9.0f} {:>8.2f} {:>8.2f}\n", r.variant,
             r.shape, r.batch, r.step_s, r.model_gflop, r.gflops_per_s, r.sgemm_gflops_per_s,
             r.gflops_per_s / r.sgemm_gflops_per_s, r.peak_rss_mb, r.user_s, r.sys_s);
  if (!r.note.empty()) fmt::print("  {}\n", r.note);
  std::fflush(stdout);
}

}  // namespace

std::vector<TrainBenchRow> run_train_benchmark(const TrainBenchOptions& o) {
  LINTRA_CHECK(o.steps >= 1, "bench train: --steps must be at least 1, got {}", o.steps);
  const std::vector<std::string>& shapes = o.shapes.empty() ? kTrainShapes : o.shapes;
  const std::vector<std::string>& variants = o.variants.empty() ? kTrainVariants : o.variants;
  for (const std::string& shape : shapes) row_config(o, shape, kTrainVariants[0]);  // unknown names fail first
  for (const std::string& variant : variants) config_row(variant);
  fmt::print("lintra bench train — {}, device {}, matmul precision {}\n", machine_line(), o.device,
             o.matmul_precision);
  fmt::print("one training step (forward, backward, RAdam update) of the paper's configs on random pixels; median of "
             "{} steps after a warm-up{}\n\n",
             o.steps, o.smoke ? "; SMOKE sizes" : "");
  fmt::print("{:<14} {:<8} {:>5} {:>9} {:>10} {:>9} {:>9} {:>6} {:>9} {:>8} {:>8}\n", "variant", "shape", "batch",
             "step_s", "GFLOP", "GFLOP/s", "sgemm", "ratio", "peak MB", "user_s", "sys_s");
  std::vector<TrainBenchRow> rows;
  for (const std::string& shape : shapes)
    for (const std::string& variant : variants) {
      rows.push_back(run_row(o, shape, variant));
      print_row(rows.back());
    }
  write_bench_rows(o.json_path, rows, to_json, "train");
  return rows;
}

}  // namespace lintra::bench
