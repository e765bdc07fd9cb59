// reformer_attention.h — the two halves of the "reformer" (LSH) attention variant, exposed so that
// tests can drive the bucketed attention with chosen buckets (reformer_attention.cpp has the math).
//
//   lsh_buckets    random-rotation hashing of the normalised keys: non-differentiable bucket ids
//   lsh_attention  sort by (bucket, position), chunked attention to the own and the previous chunk,
//                  rounds combined; differentiable in q and v
//
// The registered variant ("reformer") is lsh_attention(q, v, masks, lsh_buckets(q/‖q‖, …), …): the
// `keys` argument of InnerAttention::forward is ignored (shared QK).
#pragma once

#include <cstdint>
#include <optional>

#include "autograd/var.h"
#include "core/rng.h"
#include "nn/attention/masks.h"

namespace lintra::nn {

struct LshOptions {
  int64_t chunk_size = 32;  // C: queries per chunk; a chunk attends to itself and the chunk before
  bool masked = true;       // self-attention only when nothing else is admissible (logit −1e9)
  std::optional<double> softmax_temp;  // τ; 1/√E when absent
  double attention_dropout = 0.0;      // on the chunk attention weights, in training only
  enum class Combine : uint8_t { mean, lse } combine = Combine::mean;  // how rounds are combined
};

// keys (B, H, N, E), rows of unit norm (or zero) → bucket ids int64 (R, B, H, N) in [0, 2·bits):
// per round one Gaussian matrix Rot (E, bits), drawn from `gen` (all R drawn at once as (E, R·bits)),
// shared over batch and heads; bucket = argmax([k·Rot ; −k·Rot]). Not differentiable.
Tensor lsh_buckets(const Tensor& keys, int64_t bits, int64_t rounds, Generator& gen);

// q (B, H, N, E), v (B, H, N, M), buckets int64 (R, B, H, N) ≥ 0 → (B, H, N, M). Keys are q/‖q‖.
// Masks: full or causal, optional key lengths. `gen` draws the dropout masks (training only).
Var lsh_attention(const Var& q, const Var& v, const AttentionMasks& masks, const Tensor& buckets,
                  const LshOptions& options, Generator& gen, bool training);

// k_j = q_j / ‖q_j‖ (rows of zeros stay zero), differentiable.
Var normalize_rows(const Var& q);

}  // namespace lintra::nn
