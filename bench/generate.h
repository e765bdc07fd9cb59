// generate.h — `lintra bench generate`: image generation speed with the paper's protocols
// (PAPER.md §2.3 "Throughput protocol"; Tables 1, 4 and 5), on an untrained ImageModel with the
// paper's MNIST shape (8 layers, 8 heads, d_query 32 → d_model 256, d_ff 1024, 10 logistics).
// Untrained weights cost the same as trained ones.
//
//   causal-linear     attention causal-linear, generate_recurrent (state S, Z per layer) on the
//                     compiled engine (nn/models/image_recurrent_engine.h)
//   stateful-softmax  attention softmax, generate_recurrent (growing key/value cache), engine
//   *-bf16            the same two on the engine with its weights rounded to bfloat16 (half the bytes
//                     streamed per token; products and sums in float32; any CPU)
//   *-modules         the same two on ImageModel::step() (autograd ops, no graph), to show what
//                     the engine buys side by side
//   softmax           attention softmax, generate_recompute (the whole prefix per pixel)
//   reformer          attention reformer, lsh-1 settings (rounds 1, bits 32, chunks of 29 for MNIST and
//                     37 for CIFAR-10, as the paper), generate_recompute; unavailable if not registered
//   lsh-4             the same with 4 hashing rounds
//
// Recurrent variants generate whole images: the best of ≥ 3 full generations (after a warm-up).
// Recompute variants cost Σ_t c(t), c(t) = one batch forward of the prefix 0…t−1 (+ sampling),
// O(t²) each, so a whole image is O(L³). With `pixels` = P ≥ 2 (default 16) below L − 1, c(t)
// is timed (best of 3) at P positions spread evenly over t = 1 … L − 1, both ends included, and
// Σ_t c(t) is integrated over every t by linear interpolation between them: the row says
// `extrapolated: true` and `pixels_timed: P`. With P = 0 (or ≥ L − 1) the real generate_recompute
// runs once over every pixel.
//
// --device: the model and every pixel live on that device. The compiled engine is CPU code, so there the
// engine variants run on ImageModel::step() (backend "modules", said in the row's note); each timed
// generation ends by reading its images back to the host, which waits for a GPU's stream.
//
// Also printed: the per-token cost of each recurrent variant at batch 1 (a step and
// sampling, best of 3 per position) averaged over the first and the last 10% of positions — flat for
// causal-linear, growing with t for stateful-softmax.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lintra::bench {

inline const std::vector<std::string> kGenerateVariants = {
    "causal-linear",   "causal-linear-bf16", "causal-linear-modules", "stateful-softmax", "stateful-softmax-bf16",
    "stateful-softmax-modules", "softmax", "reformer", "lsh-4"};

struct GenerateBenchOptions {
  std::string json_path;
  std::vector<int64_t> batch_sizes = {1, 8};
  int64_t layers = 8;
  int64_t heads = 8;
  int64_t d_query = 32;
  std::string image = "mnist";  // mnist: 784 pixels; cifar: 3072 sub-pixels
  int64_t length = 0;           // pixels per image; 0: by image
  std::vector<std::string> variants = {"causal-linear", "stateful-softmax", "softmax", "reformer"};
  int64_t pixels = 16;          // recompute: positions timed and integrated; 0: every pixel
  double min_seconds = 1.0;     // recurrent: timing budget per (variant, batch)
  bool profile = true;          // per-token cost of recurrent variants
  uint64_t seed = 1;
  std::string device = "cpu";   // where the model runs: cpu, cuda, cuda:N (strict for tests)
};

struct GenerateBenchRow {
  std::string variant;
  int64_t batch = 0;
  bool available = true;        // false: the attention is not registered, or the run failed (see note)
  double images_per_s = -1;
  double seconds_per_image = -1;
  std::string mode;             // recurrent | recompute
  std::string backend;          // recurrent rows: engine | modules
  std::string weights;          // engine rows: f32 | bf16
  int64_t pixels_per_image = 0; // L
  int64_t pixels_timed = 0;     // positions whose cost was measured: L − 1, or P when extrapolated
  bool extrapolated = false;
  double ms_per_token_first = -1;  // recurrent, batch 1 with profile: first / last 10% of positions
  double ms_per_token_last = -1;
  std::string note;
  std::string device;           // where it ran
};

std::vector<GenerateBenchRow> run_generate_benchmark(const GenerateBenchOptions& options);

}  // namespace lintra::bench
