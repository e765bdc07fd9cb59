// cpu/unary_simd.h — the Highway path of the CPU elementwise kernel (cpu/elementwise.cpp) for the
// unary ops that have a vector form (cpu/unary_simd.cpp): contiguous float32 runs, dispatched at run
// time to the best SIMD target of the CPU (core/simd.h). Internal to core/cpu/.
#pragma once

#include <cstdint>

#include "core/unary_ops.h"

namespace lintra::kernels::cpu {

// Whether op's forward (backward) has a vector form: those calls below return true.
bool unary_has_vector_form(UnaryOp op);
bool unary_backward_has_vector_form(UnaryOp op);

// out[i] = op(x[i]; a, b) for i < n, in parallel above cpu/loops.h's grain; false (nothing done)
// when op has no vector form.
bool unary_simd_f32(UnaryOp op, const float* x, float* out, int64_t n, float a, float b);
// dx[i] = op's backward(g[i], x[i], y[i]; a, b); x or y may be null where op's backward does not read
// it (op::Saves). False (nothing done) when op's backward has no vector form.
bool unary_backward_simd_f32(UnaryOp op, const float* g, const float* x, const float* y, float* dx, int64_t n, float a,
                             float b);

}  // namespace lintra::kernels::cpu
