// cuda/updates.h — the one-pass kernels of the CUDA table over contiguous memory (cuda/kernel_table.cpp):
// the optimizers' updates, arange and the index range check. Declared without Tensor or fmt so that
// nvcc compiles their definitions (cuda/updates.cu) and g++ their caller; the contracts are those of
// core/kernels.h, the formulas those of core/cpu/optimizer.cpp, arange.cpp and index_range.cpp.
// One thread per element in a grid-stride loop on the device's stream; memory-bound, O(n).
#pragma once

#include <cstdint>

#include "core/cuda/elementwise.h"  // Elem

namespace lintra::cuda {

// Adam / RAdam in place: m ← β1·m + (1−β1)·g, v ← β2·v + (1−β2)·g², p ← p·decay − step·m/(√v + ε)
// (rectified) or p ← p·decay − step·m; p, g, m, v contiguous of n elements of `type` (f32 or f64).
void adam_update(int device, Elem type, void* p, const void* g, void* m, void* v, int64_t n, double beta1,
                 double beta2, double eps, double decay, double step, bool rectified);
// SGD in place: d = g + wd·p; with buf (nullptr: none) buf ← d (first) or μ·buf + d, d = buf; p ← p − lr·d.
void sgd_update(int device, Elem type, void* p, const void* g, void* buf, int64_t n, double lr, double momentum,
                double weight_decay, bool first);
// out[i] = start + i·step computed in float64, converted to `type`; n contiguous elements.
void arange(int device, Elem type, void* out, int64_t n, double start, double step);
// The values of index (i64, n contiguous) outside [low, high): result (3 i64 on the device) =
// [how many, the first such position, its value], [0, −1, 0] when none. A counting pass with atomics on
// the count and on the minimum position (both order-free: the result does not depend on scheduling),
// then one thread reads the value.
void index_range(int device, const int64_t* index, int64_t n, int64_t low, int64_t high, int64_t* result);

}  // namespace lintra::cuda
