// cpu/binary_simd.h — the Highway path of the CPU elementwise kernel (cpu/elementwise.cpp) for the
// float32 arithmetic binary ops: rows of contiguous operands, either one possibly a single value broadcast
// along the row (a bias added to every row, a tensor times a 0-d one), dispatched at run
// time to the best SIMD target of the CPU (core/simd.h). Internal to core/cpu/.
//
//   add x + y   sub x − y   mul x·y   div x / y   maximum, minimum: x > y (<) or x NaN ? x : y
// The same IEEE operations as the op structs' `fast` formulas (core/binary_ops.h), so every target
// gives the scalar loop's bits. One pass, memory-bound: n/L vectors of L lanes, one or two ops each.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/binary_ops.h"

namespace lintra::kernels::cpu {

// The code of Op's vector form for BinaryRowF32, or −1 when it has none (Pow, the comparisons).
template <class Op> constexpr int binary_vector_code() {
  if constexpr (std::is_same_v<Op, op::Add>) return 0;
  else if constexpr (std::is_same_v<Op, op::Sub>) return 1;
  else if constexpr (std::is_same_v<Op, op::Mul>) return 2;
  else if constexpr (std::is_same_v<Op, op::Div>) return 3;
  else if constexpr (std::is_same_v<Op, op::Maximum>) return 4;
  else if constexpr (std::is_same_v<Op, op::Minimum>) return 5;
  else return -1;
}

// out[i] = op(a[i · a_stride], b[i · b_stride]) for i < n, each stride 1 (a row) or 0 (one value):
// op a code above.
void binary_row_simd_f32(int code, const float* a, int64_t a_stride, const float* b, int64_t b_stride, float* out,
                         int64_t n);

}  // namespace lintra::kernels::cpu
