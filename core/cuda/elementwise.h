// cuda/elementwise.h — the elementwise kernels of the CUDA table (cuda/kernel_table.cpp), declared
// without Tensor or fmt so that nvcc compiles their definitions (cuda/elementwise.cu) and g++ their
// callers. The formulas are the CPU's: each kernel applies op::fast_of / op::backward_of of the op
// structs in core/unary_ops.h and core/binary_ops.h (LINTRA_HD), so the math has one source.
//
// Layout: every operand is described over the output's shape (Shape: ndim ≤ kMaxDims sizes, numel)
// by its element strides there (0 along a broadcast dimension) and the address of its element
// (0, …, 0) on the device; outputs too (a copy into a view writes through its strides). One thread per output element in a grid-stride
// loop: cost O(numel · ndim) integer work for the index plus the formula, memory-bound; all on the
// device's stream (cuda/runtime.h), asynchronous with respect to the host.
#pragma once

#include <cstdint>

#include "core/binary_ops.h"
#include "core/unary_ops.h"

namespace lintra::cuda {

constexpr int kMaxDims = 8;

// Element types, in the order of lintra::DType (core/dtype.h, which nvcc cannot include).
enum class Elem : uint8_t { f32, f64, i64, u8 };

struct Shape {
  int ndim = 0;
  int64_t numel = 0;
  int64_t sizes[kMaxDims] = {};
};

struct Operand {
  const void* data = nullptr;  // element (0, …, 0); nullptr: absent (an unused argument)
  int64_t strides[kMaxDims] = {};
};
// An output: written through its strides.
struct Target {
  void* data = nullptr;
  int64_t strides[kMaxDims] = {};
};

// out = op(x) at parameters a, b; float types, and i64 for the ops marked on_int64.
void unary(int device, kernels::UnaryOp op, Elem type, const Shape& shape, const Operand& x, const Target& out,
           double a, double b);
// dx = op's backward from grad and x and/or y (either may be absent, as the op's `saves` allows).
void unary_backward(int device, kernels::UnaryOp op, Elem type, const Shape& shape, const Operand& grad,
                    const Operand& x, const Operand& y, const Target& dx, double a, double b);
// out = op(a, b), a and b of type `type`; out of `type`, or u8 for comparisons.
void binary(int device, kernels::BinaryOp op, Elem type, const Shape& shape, const Operand& a, const Operand& b,
            const Target& out);
// out = cond ? a : b; cond u8, a, b and out of `type`, all described over out's shape.
void where(int device, Elem type, const Shape& shape, const Operand& cond, const Operand& a, const Operand& b,
           const Target& out);
// out[i] = src[i] converted from src_type to out_type (static_cast, as the CPU's copy).
void copy(int device, Elem src_type, const Shape& shape, const Operand& src, Elem out_type, const Target& out);
// out[i] = value converted to `type`.
void fill(int device, Elem type, const Shape& shape, const Target& out, double value);

}  // namespace lintra::cuda
