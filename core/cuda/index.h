// cuda/index.h — the index kernels of the CUDA table (cuda/kernel_table.cpp): index_select, gather,
// scatter_add, index_add. Declared without Tensor or fmt so that nvcc compiles the definitions
// (cuda/index.cu) and g++ the caller; the contracts are core/kernels.h's, the loops the CPU's
// (core/cpu/index.cpp). Indices are int64 and already range-checked by the caller (core/ops.cpp).
//
// One thread per element read or written, grid-stride, on the device's stream; memory-bound, O(n).
// The two adds go through atomicAdd (float32, float64, int64; not u8): the order of the additions into
// one element depends on scheduling, so float results may differ from the CPU's (and from run to run)
// in the last bits, as PyTorch's scatter_add on CUDA.
#pragma once

#include <cstdint>

#include "core/cuda/elementwise.h"

namespace lintra::cuda {

// out (outer, L, inner) = x (outer, n, inner) at rows index[j] (both contiguous; elements of `type`).
void index_select(int device, Elem type, const void* x, int64_t outer, int64_t n, int64_t inner,
                  const int64_t* index, int64_t L, void* out);
// out[e] = x[x_off(e) + index[index_off(e)]·dim_stride] over out's shape; x's strides there are 0 along dim.
void gather(int device, Elem type, const Shape& shape, const Operand& x, int64_t dim_stride, const Operand& index,
            const Target& out);
// out[out_off(e) + index[index_off(e)]·dim_stride] += src[src_off(e)] over index's shape.
void scatter_add(int device, Elem type, const Shape& shape, const Target& out, int64_t dim_stride,
                 const Operand& index, const Operand& src);
// out (outer, n, inner) rows index[j] += src (outer, L, inner) rows j (both contiguous).
void index_add(int device, Elem type, void* out, int64_t outer, int64_t n, int64_t inner, const int64_t* index,
               int64_t L, const void* src);

}  // namespace lintra::cuda
