// cuda/offsets.cuh — device code shared by the CUDA kernels that walk operands described over an
// output's shape (cuda/elementwise.h's Shape, Operand, Target): the operands' strides packed for a
// launch and each operand's element offset of a flat index (one division per dimension).
#pragma once

#include <cstdint>

#include "core/cuda/elementwise.h"

namespace lintra::cuda {

// The strides of N operands over the output's shape.
template <int N> struct Strides {
  int64_t s[N][kMaxDims];
};

template <int N> inline Strides<N> strides_of(const int64_t* const (&each)[N]) {
  Strides<N> st{};
  for (int k = 0; k < N; ++k)
    for (int d = 0; d < kMaxDims; ++d) st.s[k][d] = each[k][d];
  return st;
}

// Element offsets of flat index i (row-major over `shape`) in each of the N operands.
template <int N> __device__ inline void element_offsets(const Shape& shape, const Strides<N>& st, int64_t i,
                                                        int64_t (&off)[N]) {
  for (int k = 0; k < N; ++k) off[k] = 0;
  for (int d = shape.ndim - 1; d >= 0; --d) {
    const int64_t size = shape.sizes[d];
    const int64_t c = i % size;
    i /= size;
    for (int k = 0; k < N; ++k) off[k] += c * st.s[k][d];
  }
}

}  // namespace lintra::cuda
