// cuda/mixture_of_logistics.h — sampling from a discretised logistic mixture on the GPU (the kernel
// sample_mol of core/kernels.h; the math and its float64 evaluation are the CPU's,
// core/cpu/mixture_of_logistics.cpp: Gumbel-max component, logistic sample, level rounded half to even).
// Declared without Tensor or fmt so that nvcc compiles the definitions and g++ the caller.
//
// A thread per row (R: a generation step's batch), O(R·K). A row with a non-finite parameter is not
// sampled; bad (2 int64 on the device) = [the first such row, its first non-finite component], found
// with an atomic minimum over the rows (order-free) and one thread's scan of that row; [−1, −1] when none.
#pragma once

#include <cstdint>

#include "core/cuda/elementwise.h"  // Elem

namespace lintra::cuda {

// params (R, 3K) of `type` (f32/f64, contiguous), uniforms float64 (R, K + 1) → out int64 (R).
void sample_mol(int device, Elem type, const void* params, const double* uniforms, int64_t R, int64_t K,
                int64_t levels, int64_t* out, int64_t* bad);

}  // namespace lintra::cuda
