// host_simd.h — vector primitives for CPU code that works on raw float32 buffers of its own (the
// compiled recurrent engine, nn/models/image_recurrent_engine.cpp, which packs a model's weights and
// steps it one token at a time without tensors). Written over Google Highway in core/cpu/ and
// dispatched per call to the best SIMD target of the running CPU (core/simd.h), as the kernels are.
#pragma once

#include <bit>
#include <cstdint>

#include "core/tensor.h"

namespace lintra::simd {

// A weight matrix (rows × in) packed once for gemv_packed: rows in groups of kGroup, each group stored
// column by column (cpu/gemv_packed.cpp has the layout), in float32 or, rounded once, in bfloat16.
// The packed words live in a byte tensor from the host's caching allocator (64-byte aligned), of its
// own or a slice of one block that holds several products (the recurrent engine packs a whole model
// into one: a 25 MB block gets transparent huge pages and comes back from the cache when the next
// engine is built, where fresh vectors per product faulted in every 4 KiB page anew).
struct PackedRows {
  static constexpr int64_t kGroup = 16;
  enum class Format { f32, bf16 } format = Format::f32;
  int64_t rows = 0, in = 0;
  Tensor words;  // u8, packed_rows_bytes(format, rows, in) bytes

  const float* f32() const { return static_cast<const float*>(words.raw_data()); }       // Format::f32
  const uint32_t* bf16() const { return static_cast<const uint32_t*>(words.raw_data()); }  // two bf16 weights a word
};
// Bytes of a packed rows × in matrix, rounded up to a multiple of 64 (so that products packed one after
// another in one block stay 64-byte aligned).
int64_t packed_rows_bytes(PackedRows::Format format, int64_t rows, int64_t in);
// W row-major (rows × in), packed into `into` — a contiguous u8 tensor of at least packed_rows_bytes on
// the host — or, undefined, into a block of its own. Groups are packed in parallel for large matrices.
PackedRows pack_rows_f32(const float* W, int64_t rows, int64_t in, Tensor into = Tensor());
PackedRows pack_rows_bf16(const float* W, int64_t rows, int64_t in, Tensor into = Tensor());  // weights rounded by to_bf16

// y[b·rows + r] = (Σ_k W[r, k]·x[b·in + k]) + bias[r] for b < B and rows r0 ≤ r < r1, the sum in
// ascending k in float32 (FMA where the target has it), whatever the target and the format: bf16
// weights widen exactly, so the bf16 result is the float32 result of the rounded weights, bit for bit.
// r0 and r1 fall on groups of kGroup rows (r1 may be the last row; an empty block may be anywhere);
// other rows of y are not written.
// Streams the weights of [r0, r1) once from memory per call (from L2 for batch rows after the first):
// 2·B·(r1 − r0)·in FLOPs over 4·(r1 − r0)·in bytes (2 in bf16). Throws lintra::Error on a bad range.
void gemv_packed(const PackedRows& W, const float* bias, const float* x, float* y, int64_t B, int64_t r0, int64_t r1);

// One step of a linear-attention state: S (E × M, row-major) += a·bᵀ, then out (M) = Sᵀ·c, in one pass
// over S (per row e ascending: S[e, :] += a[e]·b, out += c[e]·S[e, :]; float32, FMA where the target
// has it). 2·E·M multiply-adds; out = 0 when E = 0.
void outer_update_read(float* S, const float* a, const float* b, const float* c, float* out, int64_t E, int64_t M);

// float32 → bfloat16 bits, rounded to nearest, ties to even (relative error ≤ 2^-8); NaN stays NaN.
inline uint16_t to_bf16(float v) {
  uint32_t bits = std::bit_cast<uint32_t>(v);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return uint16_t((bits >> 16) | 0x40u);  // quiet NaN
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return uint16_t(bits >> 16);
}

// bfloat16 bits → float32, exact.
inline float from_bf16(uint16_t h) { return std::bit_cast<float>(uint32_t(h) << 16); }

}  // namespace lintra::simd
