// cuda/sort.h — the stable sort of the CUDA table along lines (kernels.h sort; the CPU's is
// core/cpu/scan_sort.cpp): CUB's segmented stable radix sort of (key, index) pairs, one segment per line.
// Declared without Tensor or fmt so that nvcc compiles the definitions (cuda/sort.cu) and g++ the caller,
// which moves the sorted dim last and back. Float keys are sorted as unsigned integers in the CPU's
// order (NaN the largest, −0 equal to +0; CUB's merge sort for short lines compares floats with <, which
// NaN breaks), and the values gathered back from the input, bit for bit.
// O(n·passes) for the n = lines·length keys, plus CUB's temporary storage.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/cuda/elementwise.h"  // Elem

namespace lintra::cuda {

// The bytes of CUB temporary storage sort needs for these sizes.
size_t sort_temp_bytes(int device, Elem type, int64_t lines, int64_t length, bool descending);

// lines × length contiguous keys (f32, f64, i64, u8) → values (the sorted keys) and int64 indices (each
// output's position in its input line). keys_work: a scratch copy of lines·length keys; offsets:
// lines + 1 int64; temp: sort_temp_bytes(…) bytes. Stable: equal keys keep their input order.
void sort(int device, Elem type, const void* keys, int64_t lines, int64_t length, bool descending, void* values,
          int64_t* indices, void* keys_work, int64_t* index_work, int64_t* offsets, void* temp, size_t temp_bytes);

}  // namespace lintra::cuda
