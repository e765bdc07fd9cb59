// host_simd.h — vector primitives for CPU code that works on raw float32 buffers of its own (the
// compiled recurrent engine, nn/models/image_recurrent_engine.cpp, which packs a model's weights and
// steps it one token at a time without tensors). Written over Google Highway in core/cpu/ and
// dispatched per call to the best SIMD target of the running CPU (core/simd.h), as the kernels are.
#pragma once

#include <bit>
#include <cstdint>

namespace lintra::simd {

// y[b·rows + r] = bias[r] + Σ_i W[r·in + i]·x[b·in + i] for b < B and rows r0 ≤ r < r1 of W
// (rows × in, row-major); x is (B, in), y (B, rows). Four rows share each vector load of x, and each
// weight row is read once per call whatever B is, so a batch-1 call streams the weights once:
// 2·B·(r1 − r0)·in FLOPs over 4·(r1 − r0)·in bytes of weights. Sums run in vector lanes (float32,
// FMA where the target has it), so they differ from a sequential sum by reassociation only.
void gemv_rows_f32(const float* W, const float* bias, const float* x, float* y, int64_t B, int64_t in, int64_t rows,
                   int64_t r0, int64_t r1);

// The same with W in bfloat16 (each element the upper 16 bits of a float32, as to_bf16 below makes
// them): half the weight bytes, each widened exactly to float32 and multiplied and summed in float32,
// so the result is gemv_rows_f32 of the rounded weights (the rounding is the only difference).
void gemv_rows_bf16(const uint16_t* W, const float* bias, const float* x, float* y, int64_t B, int64_t in,
                    int64_t rows, int64_t r0, int64_t r1);

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
