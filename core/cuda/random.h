// cuda/random.h — the uniform and normal fills of the CUDA table (cuda/kernel_table.cpp), declared
// without Tensor or fmt so that nvcc compiles their definitions (cuda/random.cu) and g++ their caller.
//
// The numbers are the CPU's (core/cpu/random.cpp), from the same Philox block function (core/philox.h):
// element i of a float32 fill is lo + span·u of word i % 4 of block first + i / 4; float64 takes two
// words per element. Uniform fills are bit-identical to the CPU's (the product and the sum are rounded
// separately on both devices), so dropout masks agree. Normals are Box–Muller on the same uniforms in
// float64 with the device's sqrt, log, sin and cos (CUDA's, ≤ 2 ulp; glibc's on the CPU): within a few
// float64 ulp of the CPU's, so a float32 normal almost always has the same bits.
// One thread per Philox block in a grid-stride loop: 20 multiplies and ~40 integer ops per block,
// one coalesced write of 16 bytes; on the device's stream.
#pragma once

#include <cstdint>

#include "core/cuda/elementwise.h"  // Elem

namespace lintra::cuda {

// n contiguous elements of `type` (f32 or f64) at out from blocks first … of (stream, seed).
void uniform(int device, Elem type, void* out, int64_t n, uint64_t first, uint64_t stream, uint64_t seed, double low,
             double high);
void normal(int device, Elem type, void* out, int64_t n, uint64_t first, uint64_t stream, uint64_t seed, double mean,
            double std);
// Dropout on n contiguous float32 elements: d_i = x_i · (u_i < keep ? scale : 0), u_i the float32
// uniform of [0, 1) the fill above would write at i, zero where gate_i ≤ 0, plus residual_i (gate and
// residual null when absent; kernels.h `dropout`); x and out may alias.
void dropout(int device, const float* x, const float* gate, const float* residual, float* out, int64_t n,
             uint64_t first, uint64_t stream, uint64_t seed, float keep, float scale);

}  // namespace lintra::cuda
