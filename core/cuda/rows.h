// cuda/rows.h — the CUDA kernels of the table (cuda/kernel_table.cpp) that reduce along a dimension:
// reduce (sum/max/min over one dim), sum_squares, softmax forward/backward, layer norm
// forward/backward, the masked softmax, arg-max/min and cumsum. Declared without Tensor or fmt, so that
// nvcc compiles their definitions (cuda/rows.cu) and g++ their callers; the contracts are those of
// core/kernels.h, the math that of the CPU kernels (core/cpu/reduce.cpp, softmax.cpp, layer_norm.cpp,
// masked_softmax.cpp, scan_sort.cpp), exp from core/scalar_ops.h.
//
// Shapes: one block of kRowThreads threads per row (or per output element of reduce), a tree in shared
// memory for the row's sum or maximum, so the order of the additions is fixed by the launch, never by
// scheduling: every result here is deterministic run to run. All launches on the device's stream.
#pragma once

#include <cstdint>

#include "core/cuda/elementwise.h"

namespace lintra::cuda {

constexpr int kRowThreads = 256;

// The reductions of kernels::ReduceOp, in its order.
enum class Reduce : uint8_t { sum, max, min };

// out element o (o over out_shape, x's shape with the reduced dim set to 1) = op over r < R of
// x[offset of o in x + r·rs]; x's strides over out_shape are 0 along the reduced dim. Sum adds in
// the element type (as the CPU), max/min propagate NaN; R = 0 gives the identity (0, −inf, +inf, or
// the type's extremes). A block per output element when rows are long, else a thread per output
// element (column sums). O(numel(x)) loads, memory-bound.
void reduce(int device, Reduce op, Elem type, const Shape& out_shape, const Operand& x, int64_t R, int64_t rs,
            const Target& out);

// *out (float64) = Σ x_i² over n contiguous elements of a float type, in float64: kSumSquaresBlocks
// fixed blocks each sum a grid-stride share into partials[b] (device scratch of that many doubles),
// then one block adds the partials in a fixed tree. The result does not depend on timing. O(n).
constexpr int kSumSquaresBlocks = 256;
void sum_squares(int device, Elem type, const void* x, int64_t n, double* partials, double* out);

// Softmax (log-softmax when log) over rows of D elements: row r of x starts at x + r·row_stride and is
// contiguous; y is contiguous (rows × D). m = max (−inf rows use m = 0), y = exp(x − m)/Σ exp(x − m) or
// x − m − log Σ exp(x − m). Three passes over the row (max, sum, write): 3·D loads, D stores per row.
void softmax_forward(int device, Elem type, const void* x, int64_t row_stride, int64_t rows, int64_t D, bool log,
                     void* y);
// dx from y = the forward's output and dy (all contiguous): softmax dx = y·(dy − Σ dy·y), log-softmax
// dx = dy − exp(y)·Σ dy. Two passes per row.
void softmax_backward(int device, Elem type, const void* y, const void* dy, int64_t rows, int64_t D, bool log,
                      void* dx);

// Layer norm over rows of D (all contiguous, R rows): μ and σ² (biased) accumulated in float64 as on
// the CPU, rstd = 1/√(σ² + eps), y = (x − μ)·rstd·γ + β; mean, rstd (R) in the element type. Two
// passes for the statistics and one to write: 3·D loads per row.
void layer_norm_forward(int device, Elem type, const void* x, const void* gamma, const void* beta, double eps,
                        int64_t R, int64_t D, void* y, void* mean, void* rstd);
// Its backward: per row, with g = dy·γ and x̂ = (x − μ)·rstd, dx = rstd·(g − mean(g) − x̂·mean(g·x̂));
// dγ = Σ_rows dy·x̂ and dβ = Σ_rows dy summed in float64 over layer_norm_chunks(R) fixed chunks of rows
// (partials: device scratch of 2·chunks·D doubles), then the chunks in order: deterministic. O(R·D).
inline int64_t layer_norm_chunks(int64_t R) { return R < 128 ? R : 128; }
void layer_norm_backward(int device, Elem type, const void* dy, const void* x, const void* mean, const void* rstd,
                         const void* gamma, int64_t R, int64_t D, void* dx, void* dgamma, void* dbeta,
                         double* partials);

// Softmax over the last dim of x (contiguous, x_shape) restricted to `allowed` (u8; allowed_strides: its
// strides over x_shape, 0 where it broadcasts), the CPU's masked_softmax: 0 on masked keys and on rows
// with nothing allowed. A block per row, three passes.
void masked_softmax_forward(int device, Elem type, const void* x, const uint8_t* allowed, const Shape& x_shape,
                            const int64_t* allowed_strides, void* y);

// values and int64 indices of the max (is_max) or min over a dim of R elements at stride rs; x's strides
// over out_shape are 0 along it. First on ties; a NaN wins. A thread per output element. O(numel(x)).
void arg_reduce(int device, bool is_max, Elem type, const Shape& out_shape, const Operand& x, int64_t R, int64_t rs,
                const Target& values, const Target& indices);

// Inclusive prefix sum along the middle dim of a contiguous (outer, R, inner) x (from the end when
// reverse) into out of that layout. A thread per line, sequential along it (the CPU's order). O(numel).
void cumsum(int device, Elem type, const void* x, int64_t outer, int64_t R, int64_t inner, bool reverse, void* out);

}  // namespace lintra::cuda
