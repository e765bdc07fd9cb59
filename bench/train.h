// train.h — `lintra bench train`: the training step of the paper's image models, timed.
//
// For each shape (mnist: 8 layers, 8 heads × 32, 784 pixels; cifar10: 16 layers, 3,072 sub-pixels)
// and attention variant (softmax, causal-linear, lsh-1, lsh-4) the model is built from the paper's
// config of that row (configs/<shape>/paper/<row>.yaml: dropout 0.1, attention dropout 0.1, the
// reformer's chunks and buckets, RAdam with per-tensor clipping) at batch 10 for MNIST and 4 for
// CIFAR-10 for every variant (the paper ran CIFAR-10 softmax at batch 1 for its GPU's memory; here the
// steps must compare), and one training step — forward, backward,
// optimizer update — is run on random pixels: one warm-up step (allocations, page faults), then
// `steps` timed ones; step_s is their median.
//
// Each row (JSON object) holds:
//   variant, shape, batch, layers, length   what ran (length = pixels per image)
//   steps                                   timed steps
//   step_s                                  median seconds per step
//   model_gflop                             the step's useful GFLOP: 3× the forward's matrix products
//                                           (projections, feed-forward, mixture head, and attention as
//                                           the variant computes it: softmax the full N×N QKᵀ and AV,
//                                           causal-linear 2·N·E·M per head, reformer the hashing and
//                                           its 2C-wide windows per round)
//   gflops_per_s                            model_gflop / step_s
//   sgemm_gflops_per_s                      cblas_sgemm at the model's GEMM shapes (B·N × d)·(d × d),
//                                           (B·N × d)·(d × d_ff), (B·N × d_ff)·(d_ff × d), weighted by
//                                           their counts per layer, measured right before and right after
//                                           the row's steps: the faster of the two (on a shared host the
//                                           rate moves by a third within minutes; the ratio printed,
//                                           gflops_per_s / this, is then the conservative one)
//   sgemm_before_gflops_per_s, sgemm_after_gflops_per_s   the two measurements
//   peak_rss_mb                             the process's peak resident set during the row (VmHWM,
//                                           reset before the row; the allocator cache is emptied first)
//   user_s, sys_s                           CPU seconds per timed step (all threads), from getrusage
//   cpu_exchanges                           times per timed step that a pinned team thread, starved on a
//                                           core another process shares, swapped cores with an idle one
//                                           (core/cpu/team_loop.h); 0 on a quiet machine
// plus cpu and simd_target (the machine line of every bench: CPU model and the dispatched ISA), and
// device. On a GPU (--device cuda) each timed step ends by reading the loss back to the
// host, which waits for the device's stream (the kernels run asynchronously); sgemm_gflops_per_s is then
// cuBLAS's rate at the same shapes, called directly (bench/cuda_reference.h: its own buffers, stream and
// handle, 20 products between waits), and peak_rss_mb is the host's only. On the strict test device the
// yardstick is lintra's matmul there (its kernel table: no library to call directly).
//
// Memory: a row whose predicted activations exceed memory_cap_mb (softmax at the CIFAR-10 shape keeps
// about 6 × B·H·N² floats per layer: 7 GB per layer at batch 4) is timed with as many of its layers,
// then samples, as fit, and step_s, user_s and sys_s are scaled up linearly (layers are identical and
// the products are compute-bound); timed_layers, timed_batch and note say so. peak_rss_mb is the
// timed run's.
//
// `smoke` shrinks everything (1 layer, 2 heads × 4, 24 pixels, batch 2, chunks of 4) for tests.
// Not a test: timings are printed and written, never checked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lintra::bench {

struct TrainBenchOptions {
  std::string json_path;              // empty: no JSON
  std::vector<std::string> variants;  // empty: all of kTrainVariants
  std::vector<std::string> shapes;    // empty: mnist, cifar10
  int steps = 3;                      // timed steps after the warm-up (≥ 1)
  bool smoke = false;                 // tiny sizes (tests)
  std::string configs_dir = "configs";
  double memory_cap_mb = 6000;        // rows predicted above it are timed with fewer layers (then samples)
  std::string device = "cpu";         // where the model trains: cpu, cuda, cuda:N (the config key `device`)
  std::string matmul_precision = "fp32";  // fp32 or bf16 (the config key `matmul_precision`)
};

inline const std::vector<std::string> kTrainVariants = {"softmax", "causal-linear", "lsh-1", "lsh-4"};
inline const std::vector<std::string> kTrainShapes = {"mnist", "cifar10"};

struct TrainBenchRow {
  std::string variant, shape;
  int64_t batch = 0, layers = 0, length = 0;
  int steps = 0;
  double step_s = 0, model_gflop = 0, gflops_per_s = 0, sgemm_gflops_per_s = 0;
  double sgemm_before_gflops_per_s = 0, sgemm_after_gflops_per_s = 0;
  double peak_rss_mb = 0, user_s = 0, sys_s = 0;
  double cpu_exchanges = 0;                   // pinned team threads that swapped cores, per step
  int64_t timed_layers = 0, timed_batch = 0;  // what ran, when the memory cap shrank it
  std::string note;                           // how the row was scaled, or empty
  std::string device;                         // where it trained
};

// Runs every (shape, variant), prints a table, writes the JSON, returns the rows.
std::vector<TrainBenchRow> run_train_benchmark(const TrainBenchOptions& options);

}  // namespace lintra::bench
