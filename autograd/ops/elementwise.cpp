// ops/elementwise.cpp — differentiable elementwise ops. The unary ops of the op list share one node
// (unary), whose backward is the op's own formula (core/unary_ops.h) run by the kernel unary_backward.
// The binary ops: forward, then the backward with the derivative it implements, composed from ops;
// their gradients are reduced to each input's shape with sum_to.
#include "autograd/functional.h"

namespace lintra {

namespace {
Tensor to_shape(const Tensor& g, const InputInfo& v) { return ops::sum_to(g, v.shape); }
}  // namespace

// Saves x and/or the output as the op's backward needs (kernels::backward_saves).
Var unary(kernels::UnaryOp op, const Var& x, double a, double b) {
  LINTRA_CHECK(kernels::has_backward(op), "{}: has no backward formula (core/unary_ops.h)", name(op));
  Tensor out = ops::unary(op, x.data(), a, b);
  const op::Saves saves = kernels::backward_saves(op);
  const bool keep_x = op::saves_x(saves), keep_y = op::saves_y(saves);
  std::vector<Tensor> saved;
  if (keep_x) saved.push_back(x.data());
  if (keep_y) saved.push_back(out);
  return make_result(out, name(op), {x}, saved,
                     [op, a, b, keep_x, keep_y](const std::vector<Tensor>& s, const Tensor& g) {
                       Tensor xs = keep_x ? s.front() : Tensor(), ys = keep_y ? s.back() : Tensor();
                       return std::vector<Tensor>{ops::unary_backward(op, g, xs, ys, a, b)};
                     });
}

Var clamp(const Var& x, double low, double high) {
  LINTRA_CHECK(low <= high, "clamp: low {} > high {}", low, high);
  return unary<op::Clamp>(x, low, high);
}

// d(a + b): g to each, summed over broadcast dims
Var add(const Var& a, const Var& b) {
  return make_result(ops::add(a.data(), b.data()), "add", {a, b}, {},
                     [a = info(a), b = info(b)](const std::vector<Tensor>&, const Tensor& g) {
                       return std::vector<Tensor>{to_shape(g, a), to_shape(g, b)};
                     });
}

Var sub(const Var& a, const Var& b) {
  return make_result(ops::sub(a.data(), b.data()), "sub", {a, b}, {},
                     [a = info(a), b = info(b)](const std::vector<Tensor>&, const Tensor& g) {
                       return std::vector<Tensor>{to_shape(g, a), to_shape(ops::neg(g), b)};
                     });
}

// d(a·b) = g·b, g·a
Var mul(const Var& a, const Var& b) {
  return make_result(ops::mul(a.data(), b.data()), "mul", {a, b}, {a.data(), b.data()},
                     [a = info(a), b = info(b)](const std::vector<Tensor>& s, const Tensor& g) {
                       return std::vector<Tensor>{a.requires_grad ? to_shape(ops::mul(g, s[1]), a) : Tensor(),
                                                  b.requires_grad ? to_shape(ops::mul(g, s[0]), b) : Tensor()};
                     });
}

// d(a/b) = g/b, −g·a/b²
Var div(const Var& a, const Var& b) {
  return make_result(ops::div(a.data(), b.data()), "div", {a, b}, {a.data(), b.data()},
                     [a = info(a), b = info(b)](const std::vector<Tensor>& s, const Tensor& g) {
                       Tensor ga = a.requires_grad ? to_shape(ops::div(g, s[1]), a) : Tensor();
                       Tensor gb = b.requires_grad
                                       ? to_shape(ops::neg(ops::div(ops::mul(g, s[0]), ops::square(s[1]))), b)
                                       : Tensor();
                       return std::vector<Tensor>{ga, gb};
                     });
}

// d(x + s) = g, passed through (no kernel)
Var add(const Var& x, double s) {
  return make_result(ops::add(x.data(), s), "add_scalar", {x}, {},
                     [](const std::vector<Tensor>&, const Tensor& g) { return std::vector<Tensor>{g}; });
}

// d(a^b) = g·b·a^(b−1), g·a^b·log a
Var pow(const Var& a, const Var& b) {
  Tensor out = ops::pow(a.data(), b.data());
  return make_result(out, "pow", {a, b}, {a.data(), b.data(), out}, [a = info(a), b = info(b)](const std::vector<Tensor>& s, const Tensor& g) {
    Tensor ga = a.requires_grad ? to_shape(ops::mul(g, ops::mul(s[1], ops::pow(s[0], ops::sub(s[1], 1.0)))), a) : Tensor();
    Tensor gb = b.requires_grad ? to_shape(ops::mul(g, ops::mul(s[2], ops::log(s[0]))), b) : Tensor();
    return std::vector<Tensor>{ga, gb};
  });
}

namespace {
// max/min: the gradient goes to the selected input; ties give each half.
Var select_binary(const Var& a, const Var& b, bool is_max) {
  Tensor out = is_max ? ops::maximum(a.data(), b.data()) : ops::minimum(a.data(), b.data());
  return make_result(out, is_max ? "maximum" : "minimum", {a, b}, {a.data(), b.data()},
                     [a = info(a), b = info(b), is_max](const std::vector<Tensor>& s, const Tensor& g) {
                       Tensor wins = is_max ? ops::gt(s[0], s[1]) : ops::lt(s[0], s[1]);
                       Tensor ties = ops::eq(s[0], s[1]);
                       Tensor wa = ops::add(wins.to(g.dtype()), ops::mul(ties.to(g.dtype()), 0.5));
                       Tensor wb = ops::rsub(1.0, wa);
                       return std::vector<Tensor>{to_shape(ops::mul(g, wa), a), to_shape(ops::mul(g, wb), b)};
                     });
}
}  // namespace

Var maximum(const Var& a, const Var& b) { return select_binary(a, b, true); }
Var minimum(const Var& a, const Var& b) { return select_binary(a, b, false); }

// d where(c, a, b) = g where c (to a), g where !c (to b)
Var where(const Tensor& cond, const Var& a, const Var& b) {
  return make_result(ops::where(cond, a.data(), b.data()), "where", {a, b}, {cond},
                     [a = info(a), b = info(b)](const std::vector<Tensor>& s, const Tensor& g) {
                       Tensor zero = Tensor::scalar(0, g.dtype(), g.device());
                       return std::vector<Tensor>{to_shape(ops::where(s[0], g, zero), a),
                                                  to_shape(ops::where(s[0], zero, g), b)};
                     });
}

Var masked_fill(const Var& x, const Tensor& mask, double value) {
  return where(mask, Var(Tensor::scalar(value, x.dtype(), x.data().device())), x);
}

}  // namespace lintra
