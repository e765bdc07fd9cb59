// host_simd.h — vector primitives for CPU code that works on raw float32 buffers of its own (the
// compiled recurrent engine, nn/models/image_recurrent_engine.cpp, which packs a model's weights and
// steps it one token at a time without tensors). Written over Google Highway in core/cpu/ and
// dispatched per call to the best SIMD target of the running CPU (core/simd.h), as the kernels are.
#pragma once

#include <cstdint>

namespace lintra::simd {

// y[b·rows + r] = bias[r] + Σ_i W[r·in + i]·x[b·in + i] for b < B and rows r0 ≤ r < r1 of W
// (rows × in, row-major); x is (B, in), y (B, rows). Four rows share each vector load of x, and each
// weight row is read once per call whatever B is, so a batch-1 call streams the weights once:
// 2·B·(r1 − r0)·in FLOPs over 4·(r1 − r0)·in bytes of weights. Sums run in vector lanes (float32,
// FMA where the target has it), so they differ from a sequential sum by reassociation only.
void gemv_rows_f32(const float* W, const float* bias, const float* x, float* y, int64_t B, int64_t in, int64_t rows,
                   int64_t r0, int64_t r1);

}  // namespace lintra::simd
