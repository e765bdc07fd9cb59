// cpu/reduce_simd.h — the Highway path of the CPU reduction kernel (cpu/reduce.cpp) for float32:
// a contiguous run reduced to one value, and a contiguous row folded into an accumulator row (the
// column reductions: a bias gradient summed over the batch), dispatched at run time to the best SIMD
// target of the CPU (core/simd.h). Internal to core/cpu/.
//
//   sum  Σ p[r]        max  the largest, NaN if any is NaN        min  the smallest, NaN if any is NaN
// max/min select an input, so every target gives the scalar loop's value (up to the sign of a zero
// among equal zeros); sums add in a different order (four vector accumulators of L lanes each), within
// the recursive-summation bound (n − 1)·u·Σ|p| of the scalar loop. One pass, memory-bound.
#pragma once

#include <cstdint>

#include "core/kernels.h"

namespace lintra::kernels::cpu {

// op over p[0 … n−1]; n ≥ 1.
float reduce_run_simd_f32(ReduceOp op, const float* p, int64_t n);
// acc[i] = op(acc[i], p[i]) for i < n.
void accumulate_row_simd_f32(ReduceOp op, const float* p, float* acc, int64_t n);

}  // namespace lintra::kernels::cpu
