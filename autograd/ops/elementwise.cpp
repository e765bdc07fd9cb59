// ops/elementwise.cpp — differentiable elementwise ops. Each op: forward, then its backward with
// the derivative it implements. Binary ops reduce gradients to each input's shape with sum_to.
#include "autograd/functional.h"

namespace lintra {

using kernels::BinaryOp;
namespace k = kernels;

namespace {
Tensor to_shape(const Tensor& g, const InputInfo& v) { return ops::sum_to(g, v.shape); }
}  // namespace

// d(−x) = −g
Var neg(const Var& x) {
  return make_result(ops::neg(x.data()), "neg", {x}, {}, [](const std::vector<Tensor>&, const Tensor& g) {
    return std::vector<Tensor>{ops::neg(g)};
  });
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

Var add(const Var& x, double s) {
  return make_result(ops::add(x.data(), s), "add_scalar", {x}, {},
                     [](const std::vector<Tensor>&, const Tensor& g) { return std::vector<Tensor>{g}; });
}

Var mul(const Var& x, double s) {
  return make_result(ops::mul(x.data(), s), "mul_scalar", {x}, {},
                     [s](const std::vector<Tensor>&, const Tensor& g) { return std::vector<Tensor>{ops::mul(g, s)}; });
}

// d(x^p) = g·p·x^(p−1)
Var pow(const Var& x, double p) {
  return make_result(ops::pow(x.data(), p), "pow_scalar", {x}, {x.data()},
                     [p](const std::vector<Tensor>& s, const Tensor& g) {
                       return std::vector<Tensor>{ops::mul(g, ops::mul(ops::pow(s[0], p - 1), p))};
                     });
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

// d(eˣ) = g·eˣ (saves the output)
Var exp(const Var& x) {
  Tensor out = ops::exp(x.data());
  return make_result(out, "exp", {x}, {out}, [](const std::vector<Tensor>& s, const Tensor& g) {
    return std::vector<Tensor>{ops::mul(g, s[0])};
  });
}

// d(log x) = g/x
Var log(const Var& x) {
  return make_result(ops::log(x.data()), "log", {x}, {x.data()}, [](const std::vector<Tensor>& s, const Tensor& g) {
    return std::vector<Tensor>{ops::div(g, s[0])};
  });
}

// d(log(1 + x)) = g/(1 + x)
Var log1p(const Var& x) {
  return make_result(ops::log1p(x.data()), "log1p", {x}, {x.data()}, [](const std::vector<Tensor>& s, const Tensor& g) {
    return std::vector<Tensor>{ops::div(g, ops::add(s[0], 1.0))};
  });
}

// d(√x) = g/(2√x)
Var sqrt(const Var& x) {
  Tensor out = ops::sqrt(x.data());
  return make_result(out, "sqrt", {x}, {out}, [](const std::vector<Tensor>& s, const Tensor& g) {
    return std::vector<Tensor>{ops::div(ops::mul(g, 0.5), s[0])};
  });
}

// d(x^−½) = −½·g·x^−³ᐟ² = −½·g·out³
Var rsqrt(const Var& x) {
  Tensor out = ops::rsqrt(x.data());
  return make_result(out, "rsqrt", {x}, {out}, [](const std::vector<Tensor>& s, const Tensor& g) {
    return std::vector<Tensor>{ops::mul(ops::mul(g, ops::pow(s[0], 3.0)), -0.5)};
  });
}

// d|x| = g·sign(x) (0 at 0)
Var abs(const Var& x) {
  return make_result(ops::abs(x.data()), "abs", {x}, {x.data()}, [](const std::vector<Tensor>& s, const Tensor& g) {
    return std::vector<Tensor>{ops::mul(g, ops::sign(s[0]))};
  });
}

// d(x²) = 2·g·x
Var square(const Var& x) {
  return make_result(ops::square(x.data()), "square", {x}, {x.data()}, [](const std::vector<Tensor>& s, const Tensor& g) {
    return std::vector<Tensor>{ops::mul(ops::mul(g, s[0]), 2.0)};
  });
}

// d(tanh x) = g·(1 − tanh²x)
Var tanh(const Var& x) {
  Tensor out = ops::tanh(x.data());
  return make_result(out, "tanh", {x}, {out}, [](const std::vector<Tensor>& s, const Tensor& g) {
    return std::vector<Tensor>{ops::binary(BinaryOp::tanh_backward, g, s[0], "tanh_backward")};
  });
}

// d σ(x) = g·σ(1 − σ)
Var sigmoid(const Var& x) {
  Tensor out = ops::sigmoid(x.data());
  return make_result(out, "sigmoid", {x}, {out}, [](const std::vector<Tensor>& s, const Tensor& g) {
    return std::vector<Tensor>{ops::binary(BinaryOp::sigmoid_backward, g, s[0], "sigmoid_backward")};
  });
}

// d relu(x) = g·[x > 0]
Var relu(const Var& x) {
  return make_result(ops::relu(x.data()), "relu", {x}, {x.data()}, [](const std::vector<Tensor>& s, const Tensor& g) {
    return std::vector<Tensor>{ops::binary(BinaryOp::relu_backward, g, s[0], "relu_backward")};
  });
}

// d elu(x) = g for x > 0, g·α·eˣ = g·(out + α) otherwise
Var elu(const Var& x, double alpha) {
  Tensor out = ops::elu(x.data(), alpha);
  return make_result(out, "elu", {x}, {x.data(), out}, [alpha](const std::vector<Tensor>& s, const Tensor& g) {
    Tensor pos = ops::compare(BinaryOp::gt, s[0], 0.0);
    return std::vector<Tensor>{ops::where(pos, g, ops::mul(g, ops::add(s[1], alpha)))};
  });
}

// d gelu(x) = g·(Φ(x) + x·φ(x))
Var gelu(const Var& x) {
  return make_result(ops::gelu(x.data()), "gelu", {x}, {x.data()}, [](const std::vector<Tensor>& s, const Tensor& g) {
    return std::vector<Tensor>{ops::binary(BinaryOp::gelu_backward, g, s[0], "gelu_backward")};
  });
}

// d softplus(x) = g·σ(x)
Var softplus(const Var& x) {
  return make_result(ops::softplus(x.data()), "softplus", {x}, {x.data()}, [](const std::vector<Tensor>& s, const Tensor& g) {
    return std::vector<Tensor>{ops::mul(g, ops::sigmoid(s[0]))};
  });
}

// d clamp(x) = g·[low ≤ x ≤ high]
Var clamp(const Var& x, double low, double high) {
  return make_result(ops::clamp(x.data(), low, high), "clamp", {x}, {x.data()},
                     [low, high](const std::vector<Tensor>& s, const Tensor& g) {
                       Tensor inside = ops::mul(ops::compare(BinaryOp::ge, s[0], low).to(g.dtype()),
                                                ops::compare(BinaryOp::le, s[0], high).to(g.dtype()));
                       return std::vector<Tensor>{ops::mul(g, inside)};
                     });
}

// d where(c, a, b) = g where c (to a), g where !c (to b)
Var where(const Tensor& cond, const Var& a, const Var& b) {
  return make_result(ops::where(cond, a.data(), b.data()), "where", {a, b}, {cond},
                     [a = info(a), b = info(b)](const std::vector<Tensor>& s, const Tensor& g) {
                       Tensor zero = Tensor::scalar(0, g.dtype());
                       return std::vector<Tensor>{to_shape(ops::where(s[0], g, zero), a),
                                                  to_shape(ops::where(s[0], zero, g), b)};
                     });
}

Var masked_fill(const Var& x, const Tensor& mask, double value) {
  return where(mask, Var(Tensor::scalar(value, x.dtype())), x);
}

}  // namespace lintra
