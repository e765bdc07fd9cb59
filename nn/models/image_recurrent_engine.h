// image_recurrent_engine.h — an ImageModel's recurrent form compiled for generation (PAPER.md
// §3.4, Tables 4–5): the same function as ImageModel::step(), run on raw float32 buffers with the
// weights packed once, no autograd and no allocation per token, and the work of every token split
// across a team of threads that stays inside one parallel region for the whole token.
//
// Per token t and batch row b, with x = [embedding(pixel_b), pe(t)] (concat) or embedding + pe:
//   every layer:  qkv = W_qkv·x' + b_qkv                 one ((2E + M)·H) × D product (Q, K, V stacked)
//                 y   = raw attention step(q, k, v)       the variant's RawRecurrentStep, heads split
//                 h   = LN1(x + W_O·y + b_O)              (pre-LN: x' = LN1(x), h = x + W_O·y + b_O)
//                 x   = LN2(h + W2·act(W1·h' + b1) + b2)  (pre-LN: h' = LN2(h), x = h + FF(h'))
//   then the final norm, if any, and the head: params = W_head·x + b_head (3K)
// Eval-mode semantics (dropout off). Cost per token O(B·layers·(D·(4·H·E + 2·d_ff))) plus the
// attention's step (O(H·E·M) for causal-linear, O(t·H·(E + M)) for stateful softmax). At batch 1
// this streams every weight once per token (25 MB for the paper's 8-layer MNIST model), which is
// what bounds the speed: the weights are packed in column-major groups of 16 rows, so that each
// product reads one sequential stream (simd::PackedRows, core/cpu/gemv_packed.cpp), the rows of
// each product are split across the threads, and the
// sequential parts (norms, residuals) are repeated by every thread so that four barriers a layer
// separate the phases (core/spin_barrier.h; Note [four barriers a layer] in the .cpp). Every few hundred tokens the team and one thread are
// timed side by side and the faster runs on (core/team_backoff.h): when another process holds a core,
// the OS deschedules a team member and every barrier waits for it, so one thread wins.
//
// Weights: float32 (EngineWeights::f32), or rounded once to bfloat16 (EngineWeights::bf16; the default
// when the process runs with matmul_precision bf16, core/matmul_precision.h): half the bytes streamed
// per token, each weight widened exactly and multiplied and summed in float32 (simd::gemv_packed),
// so the only change is each weight's rounding (relative 2^-8); activations, norms, attention state
// and biases stay float32. Any CPU runs it (no bf16 instructions needed).
//
// Supported: float32 parameters on the CPU and an attention whose make_raw_step() gives a raw form
// in every layer (causal-linear, softmax). unsupported_reason() says why a model is not;
// generate_recurrent() falls back to ImageModel::step() then. Weights are copied at construction:
// build the engine after training, not before.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/team_backoff.h"
#include "nn/models/image_model.h"

namespace lintra::nn {

enum class EngineWeights { f32, bf16 };
// bf16 when matmul_precision() is bf16, else f32.
EngineWeights default_engine_weights();
const char* engine_weights_name(EngineWeights w);

class ImageRecurrentEngine {
 public:
  // Empty when `model` can run here, else the reason (for messages and for the fallback).
  static std::string unsupported_reason(ImageModel& model);

  // `batch` sequences of up to `max_steps` tokens; threads ≤ 0: lintra's thread count, reduced to 1
  // for models too small for a team to pay off.
  ImageRecurrentEngine(ImageModel& model, int64_t batch, int64_t max_steps, int threads = 0,
                       EngineWeights weights = default_engine_weights());
  ~ImageRecurrentEngine();
  ImageRecurrentEngine(const ImageRecurrentEngine&) = delete;
  ImageRecurrentEngine& operator=(const ImageRecurrentEngine&) = delete;

  // pixels[b] (b < batch, values in [0, 256)) at `position` → params (batch, 3K) row-major.
  // Positions run 0, 1, 2, … ; position 0 starts new sequences at any time.
  void step(const int64_t* pixels, int64_t position, float* params);

  int64_t batch() const { return batch_; }
  int64_t max_steps() const { return max_steps_; }
  int64_t param_dim() const { return param_dim_; }
  int threads() const { return threads_; }
  EngineWeights weights() const { return weights_; }
  // How many probes found one thread faster than the team (core/team_backoff.h).
  int64_t team_backoffs() const { return backoff_.backoffs(); }

 private:
  struct Packed;
  struct Layer;
  struct Buffers;
  void run(int tid, int n, const int64_t* pixels, int64_t position, float* params);

  int64_t batch_, max_steps_, d_model_, d_embed_, d_ff_, heads_, d_query_, d_value_, param_dim_;
  bool pre_norm_;
  bool qkv_by_heads_ = false;  // each thread computes its own heads' Q, K, V rows (Note [four barriers a layer])
  EngineWeights weights_;
  int threads_;
  TeamBackoff backoff_;
  int64_t next_position_ = 0;
  std::vector<float> embedding_;   // (256, d_embed)
  std::vector<float> positional_;  // (max_steps, D): the positional module applied to zeros
  std::vector<Layer> layers_;
  std::vector<float> final_gamma_, final_beta_;  // empty without a final norm
  double final_eps_ = 0;
  std::unique_ptr<Packed> head_;
  std::unique_ptr<Buffers> buf_;
};

}  // namespace lintra::nn
