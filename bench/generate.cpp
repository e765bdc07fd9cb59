#include "bench/generate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>

#include "autograd/node.h"
#include "core/device.h"
#include "nn/inference_scope.h"
#include "nn/models/image_generation.h"
#include "nn/models/image_recurrent_engine.h"
#include "bench/attention.h"
#include "bench/timer.h"

namespace lintra::bench {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The attention and the protocol of each of the paper's generation rows.
struct Protocol {
  std::string attention;
  nn::ParamMap params;
  bool recurrent;
  nn::RecurrentBackend backend = nn::RecurrentBackend::engine;
  nn::EngineWeights weights = nn::EngineWeights::f32;  // the engine's weight format
};

// The paper's LSH geometry for each data set: 64 buckets, chunks that divide the model's input
// (MNIST 783 = 27 × 29, CIFAR-10 3071 = 83 × 37; PAPER.md §2.2).
nn::ParamMap lsh(int64_t rounds, const std::string& image) {
  return {{"rounds", rounds},
          {"chunk_size", int64_t(image == "cifar" ? 37 : 29)},
          {"bits", int64_t(32)},
          {"attention_dropout", 0.0}};
}

Protocol protocol_of(const std::string& variant, const std::string& image) {
  if (variant == "causal-linear") return {"causal-linear", {}, true};
  if (variant == "causal-linear-bf16")
    return {"causal-linear", {}, true, nn::RecurrentBackend::engine, nn::EngineWeights::bf16};
  if (variant == "causal-linear-modules") return {"causal-linear", {}, true, nn::RecurrentBackend::modules};
  if (variant == "stateful-softmax") return {"softmax", {{"attention_dropout", 0.0}}, true};
  if (variant == "stateful-softmax-bf16")
    return {"softmax", {{"attention_dropout", 0.0}}, true, nn::RecurrentBackend::engine, nn::EngineWeights::bf16};
  if (variant == "stateful-softmax-modules")
    return {"softmax", {{"attention_dropout", 0.0}}, true, nn::RecurrentBackend::modules};
  if (variant == "softmax") return {"softmax", {{"attention_dropout", 0.0}}, false};
  if (variant == "reformer") return {"reformer", lsh(1, image), false};
  if (variant == "lsh-4") return {"reformer", lsh(4, image), false};
  LINTRA_FAIL("bench generate: unknown variant '{}' (valid: {})", variant, fmt::join(kGenerateVariants, ", "));
}

std::shared_ptr<nn::ImageModel> build_model(const Protocol& p, const GenerateBenchOptions& o) {
  nn::TokenTransformerOptions t;
  t.vocab = nn::ImageModel::kLevels;
  t.positional = nn::PositionalMode::concat;
  t.encoder.n_layers = o.layers;
  t.encoder.n_heads = o.heads;
  t.encoder.d_model = o.heads * o.d_query;
  t.encoder.dropout = 0;
  t.encoder.attention = p.attention;
  t.encoder.attention_params = p.params;
  return std::make_shared<nn::ImageModel>(t, o.seed, 10);
}

// Best of 3 of the cost of pixel t under recomputation: the batch forward of an (n, t) prefix and
// sampling from its last row.
double recompute_pixel_seconds(nn::ImageModel& model, int64_t n, int64_t t, Generator& gen) {
  std::vector<int64_t> px(size_t(n * t));
  for (auto& p : px) p = gen.randint(0, nn::ImageModel::kLevels);
  const Tensor prefix = Tensor::from_vector(px, {n, t}).to(model.device());
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < 3; ++r) {
    const auto t0 = Clock::now();
    Var params = model.mixture_params(prefix);
    wait_for_device(nn::sample_mol(params.data().select(1, t - 1), gen, nn::ImageModel::kLevels));
    best = std::min(best, since(t0));
  }
  return best;
}

// Seconds to generate n images of L pixels by recomputation, integrated from P timed positions.
double integrated_recompute_seconds(nn::ImageModel& model, int64_t n, int64_t L, int64_t P, Generator& gen) {
  nn::InferenceScope scope(model);
  std::vector<int64_t> at;
  for (int64_t i = 0; i < P; ++i) at.push_back(1 + int64_t(std::llround(double(i) * double(L - 2) / double(P - 1))));
  at.erase(std::unique(at.begin(), at.end()), at.end());
  (void)recompute_pixel_seconds(model, n, at[at.size() / 2], gen);  // warm-up
  std::vector<double> cost;
  for (int64_t t : at) cost.push_back(recompute_pixel_seconds(model, n, t, gen));
  double total = 0;
  size_t j = 0;
  for (int64_t t = 1; t <= L - 1; ++t) {
    while (j + 2 < at.size() && at[j + 1] < t) ++j;
    const double w = at.size() == 1 ? 0.0 : double(t - at[j]) / double(at[j + 1] - at[j]);
    total += at.size() == 1 ? cost[0] : cost[j] + w * (cost[j + 1] - cost[j]);
  }
  return total;
}

// Per-token cost of the recurrent form at batch 1 (step + sampling, on the engine or the modules as
// the row generates), best of 3 per position; returns the means over the first and the last 10% of
// positions, in ms.
std::pair<double, double> token_profile(nn::ImageModel& model, int64_t L, const Protocol& p, Generator& gen) {
  nn::InferenceScope scope(model);
  std::vector<double> best(size_t(L - 1), std::numeric_limits<double>::infinity());
  std::unique_ptr<nn::ImageRecurrentEngine> engine;
  if (p.backend == nn::RecurrentBackend::engine)
    engine = std::make_unique<nn::ImageRecurrentEngine>(model, 1, L, 0, p.weights);
  std::vector<float> params(engine ? size_t(engine->param_dim()) : 0);
  for (int r = 0; r < 3; ++r) {
    std::vector<nn::RecurrentState> states = model.initial_state();
    Tensor pixel = Tensor::zeros({1}, DType::i64, model.device());
    for (int64_t t = 0; t + 1 < L; ++t) {
      const auto t0 = Clock::now();
      if (engine) {
        engine->step(pixel.data<int64_t>(), t, params.data());
        pixel = nn::sample_mol(Tensor::from_vector(params, {1, engine->param_dim()}), gen, nn::ImageModel::kLevels);
      } else {
        Var out = model.step(pixel, t, states);
        pixel = nn::sample_mol(out.data(), gen, nn::ImageModel::kLevels);
        wait_for_device(pixel);
      }
      best[size_t(t)] = std::min(best[size_t(t)], since(t0));
    }
  }
  const size_t w = std::max<size_t>(1, best.size() / 10);
  double first = 0, last = 0;
  for (size_t i = 0; i < w; ++i) {
    first += best[i];
    last += best[best.size() - w + i];
  }
  return {first / double(w) * 1e3, last / double(w) * 1e3};
}

nlohmann::ordered_json row_json(const GenerateBenchRow& r) {
  using J = nlohmann::ordered_json;
  J j;
  j["variant"] = r.variant;
  j["device"] = r.device;
  j["batch"] = r.batch;
  j["images_per_s"] = r.available ? J(r.images_per_s) : J(nullptr);
  j["seconds_per_image"] = r.available ? J(r.seconds_per_image) : J(nullptr);
  j["available"] = r.available;
  j["mode"] = r.mode;
  if (!r.backend.empty()) j["backend"] = r.backend;
  if (!r.weights.empty()) j["weights"] = r.weights;
  j["pixels_per_image"] = r.pixels_per_image;
  j["pixels_timed"] = r.pixels_timed;
  j["extrapolated"] = r.extrapolated;
  if (r.ms_per_token_first >= 0) {
    j["ms_per_token_first_10pct"] = r.ms_per_token_first;
    j["ms_per_token_last_10pct"] = r.ms_per_token_last;
  }
  if (!r.note.empty()) j["note"] = r.note;
  return j;
}

// Images of L pixels; P > 0: recompute rows are timed at P positions and integrated.
struct Sweep {
  int64_t L = 0;
  int64_t P = 0;
};

void print_header(const GenerateBenchOptions& o, const Sweep& sw) {
  fmt::print("lintra bench generate — {}, device {}\n", machine_line(), o.device);
  fmt::print("untrained ImageModel: {} layers, {} heads, d_query {} (d_model {}), {} pixels per image ({}), "
             "10 logistics\n",
             o.layers, o.heads, o.d_query, o.heads * o.d_query, sw.L, o.image);
  fmt::print("recurrent rows: best of >= 3 whole generations. recompute rows: {}\n\n",
             sw.P > 0 ? fmt::format("the cost of pixel t (a forward of the t-pixel prefix + sampling, best of 3) "
                                    "timed at {} positions over t = 1 … {} and integrated over every t "
                                    "(extrapolated)",
                                    sw.P, sw.L - 1)
                      : std::string("one real generation over every pixel"));
  fmt::print("{:<18} {:<10} {:>5} {:>12} {:>12} {:>8}  {}\n", "variant", "mode", "batch", "images/s", "s/image",
             "timed", "note");
}

// Seconds to generate a batch of n images with the variant's protocol; fills the row's timing fields.
double generation_seconds(nn::ImageModel& model, const Protocol& p, int64_t n, const Sweep& sw,
                          const GenerateBenchOptions& o, Generator& gen, GenerateBenchRow& r) {
  if (p.recurrent) {
    const double s =
        time_best([&] { wait_for_device(nn::generate_recurrent(model, n, sw.L, gen, {}, p.backend, p.weights)); }, o.min_seconds);
    r.pixels_timed = sw.L - 1;
    return s;
  }
  if (sw.P > 0) {
    const double s = integrated_recompute_seconds(model, n, sw.L, sw.P, gen);
    r.pixels_timed = sw.P;
    r.extrapolated = true;
    r.note = fmt::format("extrapolated from {} timed positions", sw.P);
    return s;
  }
  const auto t0 = Clock::now();
  wait_for_device(nn::generate_recompute(model, n, sw.L, gen));
  const double s = since(t0);
  r.pixels_timed = sw.L - 1;
  r.note = "one run";
  return s;
}

// One (variant, batch) row, printed; a failure is reported in the row and the sweep goes on.
GenerateBenchRow bench_row(nn::ImageModel* model, const std::string& variant, const Protocol& p, int64_t n,
                           const Sweep& sw, const GenerateBenchOptions& o) {
  GenerateBenchRow r;
  r.variant = variant;
  r.batch = n;
  r.available = model != nullptr;
  r.mode = p.recurrent ? "recurrent" : "recompute";
  if (p.recurrent) r.backend = p.backend == nn::RecurrentBackend::engine ? "engine" : "modules";
  if (p.recurrent && p.backend == nn::RecurrentBackend::engine) r.weights = nn::engine_weights_name(p.weights);
  r.pixels_per_image = sw.L;
  r.device = o.device;
  if (p.recurrent && o.device != "cpu" && variant.find("-modules") == std::string::npos)
    r.note = fmt::format("on {} the compiled engine (CPU code) gives way to the modules", o.device);
  Generator gen(o.seed, 100 + uint64_t(n));
  double seconds = 0;  // for the whole batch
  try {
    if (!model) r.note = fmt::format("attention '{}' is not registered", p.attention);
    else seconds = generation_seconds(*model, p, n, sw, o, gen, r);
  } catch (const Error& e) {
    r.available = false;
    r.note = fmt::format("failed: {}", e.what());
  }
  if (r.available) {
    r.images_per_s = double(n) / seconds;
    r.seconds_per_image = seconds / double(n);
  }
  fmt::print("{:<18} {:<10} {:>5} {:>12} {:>12} {:>8}  {}\n", r.variant, r.mode, r.batch,
             r.available ? fmt::format("{:.4g}", r.images_per_s) : "-",
             r.available ? fmt::format("{:.4g}", r.seconds_per_image) : "-", r.pixels_timed, r.note);
  std::fflush(stdout);
  return r;
}

}  // namespace

std::vector<GenerateBenchRow> run_generate_benchmark(const GenerateBenchOptions& o) {
  Sweep sw;
  sw.L = o.length > 0 ? o.length : (o.image == "cifar" ? 3072 : 784);
  LINTRA_CHECK(sw.L >= 2, "bench generate: images need at least 2 pixels, got {}", sw.L);
  LINTRA_CHECK(!o.batch_sizes.empty(), "bench generate: no batch sizes");
  sw.P = o.pixels > 0 && o.pixels < sw.L - 1 ? std::max<int64_t>(2, o.pixels) : 0;
  check_device_available(Device::parse(o.device));  // a missing GPU fails before any row
  print_header(o, sw);
  std::vector<GenerateBenchRow> rows;
  std::vector<std::string> profile_lines;
  const Device device = Device::parse(o.device);
  for (const std::string& variant : o.variants) {
    Protocol p = protocol_of(variant, o.image);
    if (!device.is_cpu() && p.backend == nn::RecurrentBackend::engine) p.backend = nn::RecurrentBackend::modules;
    const bool available = nn::builtin_attention_registry().contains(p.attention);
    std::shared_ptr<nn::ImageModel> model = available ? build_model(p, o) : nullptr;
    if (model) model->to(device);
    for (int64_t n : o.batch_sizes) rows.push_back(bench_row(model.get(), variant, p, n, sw, o));
    if (!available || !p.recurrent || !o.profile) continue;
    Generator gen(o.seed, 99);
    auto [first, last] = token_profile(*model, sw.L, p, gen);
    profile_lines.push_back(fmt::format("{:<18} first 10%: {:.3f} ms/token   last 10%: {:.3f} ms/token   "
                                        "(last / first = {:.2f})",
                                        variant, first, last, last / first));
    for (auto& r : rows)
      if (r.variant == variant && r.batch == 1) r.ms_per_token_first = first, r.ms_per_token_last = last;
  }
  if (!profile_lines.empty()) {
    fmt::print("\nper-token cost of the recurrent form at batch 1 (step + sampling, best of 3 per position):\n");
    for (const auto& line : profile_lines) fmt::print("{}\n", line);
  }
  write_bench_rows(o.json_path, rows, row_json, "generate");
  return rows;
}

}  // namespace lintra::bench
