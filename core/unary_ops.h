// unary_ops.h — every unary elementwise op: one struct each, and their list, UnaryOps.
//
// An op struct holds, side by side:
//   name                    used in errors, autograd node names and test output;
//   fast(x[, a[, b]])       the kernels' formula, a template on the element type T, LINTRA_HD so that a
//                           CUDA kernel can use it too; a, b are the op's scalar parameters (elu's α,
//                           clamp's bounds, …), converted to T once per kernel call;
//   reference(x[, a[, b]])  a plain float64 formula, written independently of fast: the tests' oracle;
//   on_int64 = true         when the op is defined on int64 tensors too (float32 and float64 always).
// and, when the op is differentiable:
//   saves                   which of x (the input) and y (the output) its backward reads; autograd
//                           keeps only those alive, and the other argument of backward is meaningless;
//   backward(g, x, y[, a[, b]])        dx = g·f'(x) from the incoming gradient g, for unary_backward;
//   reference_backward(g, x[, a[, b]]) the same from x alone, in float64: the oracle of backward.
// Optionally, specialize(a, b, run) calls run(f) with f(x) = fast(x, a, b) for constant common
// parameters, so that the compiler folds fast's branches (pow at 2 and ½ runs x·x and √x loops).
//
// Keep fast and backward numerically stable and in the same expression order as before: results
// of trained models depend on them. float32 exp, sigmoid and elu use scalar::exp_f32 (vectorises).
//
// Adding an op: its struct here and its entry in UnaryOps (this file), ops::<name> in core/ops.h,
// and if differentiable a Var <name>(…) line in autograd/functional.h. The CPU kernel, the reference,
// unary_backward, autograd's generic wrapper and the tests' coverage checks follow from the list;
// tests/core/test_elementwise_kernels.cpp fails until its case table gives the op an input range.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/op_list.h"
#include "core/scalar_ops.h"

namespace lintra::op {

// What a backward reads besides the incoming gradient.
enum class Saves : uint8_t { nothing, x, y, x_and_y };
constexpr bool saves_x(Saves s) { return s == Saves::x || s == Saves::x_and_y; }
constexpr bool saves_y(Saves s) { return s == Saves::y || s == Saves::x_and_y; }

template <class Op> constexpr bool has_backward = requires { Op::saves; };
template <class Op> constexpr bool on_int64 = requires { requires Op::on_int64; };
template <class Op, class T>
constexpr bool unary_defined_on = std::is_floating_point_v<T> || (std::is_same_v<T, int64_t> && on_int64<Op>);

// Op's formulas, called with as many of the parameters a, b as the op takes.
template <class Op, class T> LINTRA_HD T fast_of(T x, T a, T b) {
  if constexpr (requires { Op::fast(x, a, b); }) return Op::fast(x, a, b);
  else if constexpr (requires { Op::fast(x, a); }) return Op::fast(x, a);
  else return Op::fast(x);
}
template <class Op> double reference_of(double x, double a, double b) {
  if constexpr (requires { Op::reference(x, a, b); }) return Op::reference(x, a, b);
  else if constexpr (requires { Op::reference(x, a); }) return Op::reference(x, a);
  else return Op::reference(x);
}
template <class Op, class T> LINTRA_HD T backward_of(T g, T x, T y, T a, T b) {
  if constexpr (requires { Op::backward(g, x, y, a, b); }) return Op::backward(g, x, y, a, b);
  else if constexpr (requires { Op::backward(g, x, y, a); }) return Op::backward(g, x, y, a);
  else return Op::backward(g, x, y);
}
template <class Op> double reference_backward_of(double g, double x, double a, double b) {
  if constexpr (requires { Op::reference_backward(g, x, a, b); }) return Op::reference_backward(g, x, a, b);
  else if constexpr (requires { Op::reference_backward(g, x, a); }) return Op::reference_backward(g, x, a);
  else return Op::reference_backward(g, x);
}

// run(f) with f(x) = Op's fast formula at parameters a, b (through Op::specialize where it has one).
template <class Op, class T, class Run> void with_fast_formula(T a, T b, Run&& run) {
  if constexpr (requires { Op::specialize(a, b, run); }) Op::specialize(a, b, run);
  else run([a, b](T x) { return fast_of<Op>(x, a, b); });
}

// --- the ops ---------------------------------------------------------------------------------------

struct Neg {
  static constexpr const char* name = "neg";
  static constexpr bool on_int64 = true;
  template <class T> LINTRA_HD static T fast(T x) { return -x; }
  static double reference(double x) { return -x; }
  static constexpr Saves saves = Saves::nothing;
  template <class T> LINTRA_HD static T backward(T g, T, T) { return -g; }
  static double reference_backward(double g, double) { return -g; }
};

struct Exp {
  static constexpr const char* name = "exp";
  template <class T> LINTRA_HD static T fast(T x) { return scalar::exp<T>(x); }
  static double reference(double x) { return std::exp(x); }
  static constexpr Saves saves = Saves::y;
  template <class T> LINTRA_HD static T backward(T g, T, T y) { return g * y; }
  static double reference_backward(double g, double x) { return g * std::exp(x); }
};

struct Log {
  static constexpr const char* name = "log";
  template <class T> LINTRA_HD static T fast(T x) { return std::log(x); }
  static double reference(double x) { return std::log(x); }
  static constexpr Saves saves = Saves::x;
  template <class T> LINTRA_HD static T backward(T g, T x, T) { return g / x; }
  static double reference_backward(double g, double x) { return g * (1 / x); }
};

struct Log1p {
  static constexpr const char* name = "log1p";
  template <class T> LINTRA_HD static T fast(T x) { return std::log1p(x); }
  static double reference(double x) { return std::log1p(x); }
  static constexpr Saves saves = Saves::x;
  template <class T> LINTRA_HD static T backward(T g, T x, T) { return g / (x + T(1)); }
  static double reference_backward(double g, double x) { return g / (1 + x); }
};

struct Sqrt {
  static constexpr const char* name = "sqrt";
  template <class T> LINTRA_HD static T fast(T x) { return std::sqrt(x); }
  static double reference(double x) { return std::sqrt(x); }
  static constexpr Saves saves = Saves::y;
  template <class T> LINTRA_HD static T backward(T g, T, T y) { return (g * T(0.5)) / y; }
  static double reference_backward(double g, double x) { return g / (2 * std::sqrt(x)); }
};

struct Rsqrt {
  static constexpr const char* name = "rsqrt";
  template <class T> LINTRA_HD static T fast(T x) { return T(1) / std::sqrt(x); }
  static double reference(double x) { return std::pow(x, -0.5); }
  static constexpr Saves saves = Saves::y;
  // d(x^−½) = −½·g·x^−³ᐟ² = −½·g·y³
  template <class T> LINTRA_HD static T backward(T g, T, T y) { return (g * std::pow(y, T(3))) * T(-0.5); }
  static double reference_backward(double g, double x) { return -0.5 * g * std::pow(x, -1.5); }
};

struct Abs {
  static constexpr const char* name = "abs";
  static constexpr bool on_int64 = true;
  template <class T> LINTRA_HD static T fast(T x) { return std::abs(x); }
  static double reference(double x) { return std::fabs(x); }
  static constexpr Saves saves = Saves::x;
  template <class T> LINTRA_HD static T backward(T g, T x, T) { return g * T((x > T(0)) - (x < T(0))); }
  static double reference_backward(double g, double x) { return x > 0 ? g : (x < 0 ? -g : 0); }
};

struct Square {
  static constexpr const char* name = "square";
  static constexpr bool on_int64 = true;
  template <class T> LINTRA_HD static T fast(T x) { return x * x; }
  static double reference(double x) { return x * x; }
  static constexpr Saves saves = Saves::x;
  template <class T> LINTRA_HD static T backward(T g, T x, T) { return (g * x) * T(2); }
  static double reference_backward(double g, double x) { return 2 * x * g; }
};

struct Tanh {
  static constexpr const char* name = "tanh";
  template <class T> LINTRA_HD static T fast(T x) { return std::tanh(x); }
  static double reference(double x) { return std::tanh(x); }
  static constexpr Saves saves = Saves::y;
  template <class T> LINTRA_HD static T backward(T g, T, T y) { return g * (T(1) - y * y); }
  static double reference_backward(double g, double x) { return g / (std::cosh(x) * std::cosh(x)); }
};

struct Sigmoid {
  static constexpr const char* name = "sigmoid";
  template <class T> LINTRA_HD static T fast(T x) { return scalar::sigmoid<T>(x); }
  static double reference(double x) { return 1 / (1 + std::exp(-x)); }
  static constexpr Saves saves = Saves::y;
  template <class T> LINTRA_HD static T backward(T g, T, T y) { return g * y * (T(1) - y); }
  static double reference_backward(double g, double x) {
    return g * std::exp(-x) / ((1 + std::exp(-x)) * (1 + std::exp(-x)));
  }
};

struct Relu {
  static constexpr const char* name = "relu";
  template <class T> LINTRA_HD static T fast(T x) { return scalar::relu<T>(x); }
  static double reference(double x) { return x > 0 ? x : 0; }
  static constexpr Saves saves = Saves::x;
  template <class T> LINTRA_HD static T backward(T g, T x, T) { return x > T(0) ? g : T(0); }
  static double reference_backward(double g, double x) { return x > 0 ? g : 0; }
};

// gelu(x) = x·Φ(x), the exact (erf) form; d gelu = g·(Φ(x) + x·φ(x)).
struct Gelu {
  static constexpr const char* name = "gelu";
  template <class T> LINTRA_HD static T fast(T x) { return scalar::gelu<T>(x); }
  static double reference(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }
  static constexpr Saves saves = Saves::x;
  template <class T> LINTRA_HD static T backward(T g, T x, T) { return g * scalar::gelu_grad<T>(x); }
  static double reference_backward(double g, double x) {
    const double cdf = 0.5 * (1 + std::erf(x / std::sqrt(2.0)));
    const double pdf = std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI);
    return g * (cdf + x * pdf);
  }
};

// softplus(x) = log(1 + eˣ), computed stably; d softplus = g·σ(x).
struct Softplus {
  static constexpr const char* name = "softplus";
  template <class T> LINTRA_HD static T fast(T x) { return scalar::softplus<T>(x); }
  static double reference(double x) { return std::log(1 + std::exp(x)); }
  static constexpr Saves saves = Saves::x;
  template <class T> LINTRA_HD static T backward(T g, T x, T) { return g * scalar::sigmoid<T>(x); }
  static double reference_backward(double g, double x) { return g / (1 + std::exp(-x)); }
};

struct Sign {
  static constexpr const char* name = "sign";
  template <class T> LINTRA_HD static T fast(T x) { return T((x > T(0)) - (x < T(0))); }
  static double reference(double x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }
};

struct Reciprocal {
  static constexpr const char* name = "reciprocal";
  template <class T> LINTRA_HD static T fast(T x) { return T(1) / x; }
  static double reference(double x) { return 1 / x; }
};

// elu(x) = x for x > 0, α(eˣ − 1) otherwise; d elu = g for x > 0, g·α·eˣ = g·(y + α) otherwise.
struct Elu {
  static constexpr const char* name = "elu";
  template <class T> LINTRA_HD static T fast(T x, T alpha) { return scalar::elu<T>(x, alpha); }
  static double reference(double x, double alpha) { return x > 0 ? x : alpha * (std::exp(x) - 1); }
  static constexpr Saves saves = Saves::x_and_y;
  template <class T> LINTRA_HD static T backward(T g, T x, T y, T alpha) { return x > T(0) ? g : g * (y + alpha); }
  static double reference_backward(double g, double x, double alpha) { return x > 0 ? g : g * alpha * std::exp(x); }
};

// φ(x) = elu(x) + 1 (α = 1), linear attention's feature map (PAPER.md §3 eq 7) in one pass: x + 1 for
// x > 0, (eˣ − 1) + 1 otherwise — the same float expression as elu then add 1, so the same bits.
// dφ = g for x > 0, g·eˣ = g·φ otherwise; φ > 1 exactly when x > 0 (x + 1 rounded is ≥ 1, and the
// x where it rounds to 1 give g either way), so the backward reads φ alone: g·min(φ, 1), written
// φ > 1 ? g : g·φ (NaN in φ gives NaN).
struct EluFeature {
  static constexpr const char* name = "elu_feature";
  template <class T> LINTRA_HD static T fast(T x) { return scalar::elu<T>(x, T(1)) + T(1); }
  static double reference(double x) { return x > 0 ? x + 1 : std::exp(x); }
  static constexpr Saves saves = Saves::y;
  template <class T> LINTRA_HD static T backward(T g, T, T y) { return y > T(1) ? g : g * y; }
  static double reference_backward(double g, double x) { return x > 0 ? g : g * std::exp(x); }
};

// x^p; d = g·p·x^(p−1).
struct PowScalar {
  static constexpr const char* name = "pow_scalar";
  template <class T> LINTRA_HD static T fast(T x, T p) {
    return p == T(2) ? x * x : (p == T(0.5) ? std::sqrt(x) : std::pow(x, p));
  }
  template <class T, class Run> static void specialize(T p, T, Run&& run) {
    if (p == T(2)) return run([](T x) { return fast(x, T(2)); });
    if (p == T(0.5)) return run([](T x) { return fast(x, T(0.5)); });
    run([p](T x) { return fast(x, p); });
  }
  static double reference(double x, double p) { return std::pow(x, p); }
  static constexpr Saves saves = Saves::x;
  template <class T> LINTRA_HD static T backward(T g, T x, T, T p) { return g * (fast(x, p - T(1)) * p); }
  static double reference_backward(double g, double x, double p) { return g * p * std::pow(x, p - 1); }
};

// min(max(x, low), high); d = g inside [low, high], 0 outside.
struct Clamp {
  static constexpr const char* name = "clamp";
  static constexpr bool on_int64 = true;
  template <class T> LINTRA_HD static T fast(T x, T low, T high) { return x < low ? low : (x > high ? high : x); }
  static double reference(double x, double low, double high) { return std::min(std::max(x, low), high); }
  static constexpr Saves saves = Saves::x;
  template <class T> LINTRA_HD static T backward(T g, T x, T, T low, T high) {
    return g * (T(x >= low) * T(x <= high));
  }
  static double reference_backward(double g, double x, double low, double high) {
    return low <= x && x <= high ? g : 0;
  }
};

struct AddScalar {
  static constexpr const char* name = "add_scalar";
  static constexpr bool on_int64 = true;
  template <class T> LINTRA_HD static T fast(T x, T s) { return x + s; }
  static double reference(double x, double s) { return x + s; }
  static constexpr Saves saves = Saves::nothing;
  template <class T> LINTRA_HD static T backward(T g, T, T, T) { return g; }
  static double reference_backward(double g, double, double) { return g; }
};

struct MulScalar {
  static constexpr const char* name = "mul_scalar";
  static constexpr bool on_int64 = true;
  template <class T> LINTRA_HD static T fast(T x, T s) { return x * s; }
  static double reference(double x, double s) { return x * s; }
  static constexpr Saves saves = Saves::nothing;
  template <class T> LINTRA_HD static T backward(T g, T, T, T s) { return g * s; }
  static double reference_backward(double g, double, double s) { return g * s; }
};

// s − x
struct RsubScalar {
  static constexpr const char* name = "rsub_scalar";
  static constexpr bool on_int64 = true;
  template <class T> LINTRA_HD static T fast(T x, T s) { return s - x; }
  static double reference(double x, double s) { return s - x; }
  static constexpr Saves saves = Saves::nothing;
  template <class T> LINTRA_HD static T backward(T g, T, T, T) { return -g; }
  static double reference_backward(double g, double, double) { return -g; }
};

// log σ(x) = min(x, 0) − log(1 + e^{−|x|}), accurate for every finite x (log of σ(x) as written
// fails below x ≈ −88 in float32, where σ underflows); d = g·σ(−x) = g·(1 − σ(x)).
struct LogSigmoid {
  static constexpr const char* name = "log_sigmoid";
  template <class T> LINTRA_HD static T fast(T x) {
    return (x < T(0) ? x : T(0)) - std::log1p(std::exp(-std::abs(x)));
  }
  static double reference(double x) { return std::log(1 / (1 + std::exp(-x))); }
  static constexpr Saves saves = Saves::x;
  template <class T> LINTRA_HD static T backward(T g, T x, T) { return g * scalar::sigmoid<T>(-x); }
  static double reference_backward(double g, double x) { return g / (1 + std::exp(x)); }
};

using UnaryOps = OpList<Neg, Exp, Log, Log1p, Sqrt, Rsqrt, Abs, Square, Tanh, Sigmoid, Relu, Gelu, Softplus, Sign,
                        Reciprocal, Elu, EluFeature, PowScalar, Clamp, AddScalar, MulScalar, RsubScalar, LogSigmoid>;

}  // namespace lintra::op

namespace lintra::kernels {

// The unary op a kernel applies: `unary_op<op::Exp>`.
using UnaryOp = op::OpHandle<op::UnaryOps>;
template <class Op> inline constexpr UnaryOp unary_op = UnaryOp::of<Op>();

constexpr bool has_backward(UnaryOp o) {
  return o.visit([]<class Op>() { return op::has_backward<Op>; });
}
// What o's backward reads (nothing for an op without a backward).
constexpr op::Saves backward_saves(UnaryOp o) {
  return o.visit([]<class Op>() {
    if constexpr (op::has_backward<Op>) return Op::saves;
    else return op::Saves::nothing;
  });
}

}  // namespace lintra::kernels
