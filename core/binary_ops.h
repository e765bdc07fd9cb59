// binary_ops.h — every binary elementwise op: one struct each, and their list, BinaryOps.
//
// An op struct holds, side by side:
//   name                  used in errors and test output;
//   fast(x, y)            the kernels' formula, a template on the element type T, LINTRA_HD so that a
//                         CUDA kernel can use it too;
//   reference(x, y)       a plain float64 formula: the tests' oracle;
//   on_integers = true    when the op is defined on int64 and uint8 tensors too (floats always);
//   comparison = true     for comparisons: defined on every dtype, the result is uint8 (0/1).
// Gradients of binary ops are composed from other ops in autograd/ops/elementwise.cpp.
//
// Adding an op: its struct here and its entry in BinaryOps (this file), ops::<name> in core/ops.h,
// and if differentiable its Var function (autograd/functional.h, autograd/ops/elementwise.cpp).
// The CPU kernel and the reference follow from the list; tests/core/test_elementwise_kernels.cpp
// fails until its case table gives the op an input range.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/op_list.h"
#include "core/scalar_ops.h"

namespace lintra::op {

template <class Op> constexpr bool is_comparison = requires { requires Op::comparison; };
template <class Op> constexpr bool on_integers = requires { requires Op::on_integers; };
template <class Op, class T>
constexpr bool binary_defined_on = std::is_floating_point_v<T> || on_integers<Op> || is_comparison<Op>;

// --- arithmetic ------------------------------------------------------------------------------------

struct Add {
  static constexpr const char* name = "add";
  static constexpr bool on_integers = true;
  template <class T> LINTRA_HD static T fast(T x, T y) { return x + y; }
  static double reference(double x, double y) { return x + y; }
};

struct Sub {
  static constexpr const char* name = "sub";
  static constexpr bool on_integers = true;
  template <class T> LINTRA_HD static T fast(T x, T y) { return x - y; }
  static double reference(double x, double y) { return x - y; }
};

struct Mul {
  static constexpr const char* name = "mul";
  static constexpr bool on_integers = true;
  template <class T> LINTRA_HD static T fast(T x, T y) { return x * y; }
  static double reference(double x, double y) { return x * y; }
};

struct Div {
  static constexpr const char* name = "div";
  static constexpr bool on_integers = true;
  template <class T> LINTRA_HD static T fast(T x, T y) { return x / y; }
  static double reference(double x, double y) { return x / y; }
};

struct Pow {
  static constexpr const char* name = "pow";
  template <class T> LINTRA_HD static T fast(T x, T y) { return std::pow(x, y); }
  static double reference(double x, double y) { return std::pow(x, y); }
};

// maximum and minimum propagate NaN from either side (x != x is true only for NaN).
struct Maximum {
  static constexpr const char* name = "maximum";
  static constexpr bool on_integers = true;
  template <class T> LINTRA_HD static T fast(T x, T y) { return x > y || x != x ? x : y; }
  static double reference(double x, double y) { return std::isnan(x) ? x : (std::isnan(y) ? y : std::max(x, y)); }
};

struct Minimum {
  static constexpr const char* name = "minimum";
  static constexpr bool on_integers = true;
  template <class T> LINTRA_HD static T fast(T x, T y) { return x < y || x != x ? x : y; }
  static double reference(double x, double y) { return std::isnan(x) ? x : (std::isnan(y) ? y : std::min(x, y)); }
};

// --- comparisons (uint8 results) -----------------------------------------------------------------

struct Eq {
  static constexpr const char* name = "eq";
  static constexpr bool comparison = true;
  template <class T> LINTRA_HD static bool fast(T x, T y) { return x == y; }
  static double reference(double x, double y) { return x == y; }
};

struct Ne {
  static constexpr const char* name = "ne";
  static constexpr bool comparison = true;
  template <class T> LINTRA_HD static bool fast(T x, T y) { return x != y; }
  static double reference(double x, double y) { return x != y; }
};

struct Lt {
  static constexpr const char* name = "lt";
  static constexpr bool comparison = true;
  template <class T> LINTRA_HD static bool fast(T x, T y) { return x < y; }
  static double reference(double x, double y) { return x < y; }
};

struct Le {
  static constexpr const char* name = "le";
  static constexpr bool comparison = true;
  template <class T> LINTRA_HD static bool fast(T x, T y) { return x <= y; }
  static double reference(double x, double y) { return x <= y; }
};

struct Gt {
  static constexpr const char* name = "gt";
  static constexpr bool comparison = true;
  template <class T> LINTRA_HD static bool fast(T x, T y) { return x > y; }
  static double reference(double x, double y) { return x > y; }
};

struct Ge {
  static constexpr const char* name = "ge";
  static constexpr bool comparison = true;
  template <class T> LINTRA_HD static bool fast(T x, T y) { return x >= y; }
  static double reference(double x, double y) { return x >= y; }
};

using BinaryOps = OpList<Add, Sub, Mul, Div, Pow, Maximum, Minimum, Eq, Ne, Lt, Le, Gt, Ge>;

}  // namespace lintra::op

namespace lintra::kernels {

// The binary op a kernel applies: `binary_op<op::Add>`.
using BinaryOp = op::OpHandle<op::BinaryOps>;
template <class Op> inline constexpr BinaryOp binary_op = BinaryOp::of<Op>();

constexpr bool is_comparison(BinaryOp o) {
  return o.visit([]<class Op>() { return op::is_comparison<Op>; });
}

}  // namespace lintra::kernels
