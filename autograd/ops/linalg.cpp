// ops/linalg.cpp — matmul, addmm and linear.
#include "autograd/functional.h"

namespace lintra {

namespace {

// The gradients of C = A·B (shapes as, bs before broadcasting): dA = dC·Bᵀ, dB = Aᵀ·dC, each summed
// over broadcast batch dims; undefined where not needed. Transposes are views (no copies; the BLAS
// wrapper reads them as CblasTrans). When B is a shared matrix and A is batched, dB is one GEMM over
// all rows: (A reshaped to (rows, K))ᵀ · (dC reshaped to (rows, N)).
std::vector<Tensor> matmul_grads(const Tensor& a, const Tensor& b, const Shape& as, const Shape& bs, bool a_needs,
                                 bool b_needs, const Tensor& g) {
  Tensor ga, gb;
  if (a_needs) ga = ops::sum_to(ops::matmul(g, b.transpose(-1, -2)), as);
  if (b_needs) {
    if (bs.size() == 2 && as.size() > 2) {
      const int64_t K = as.back(), N = bs.back();
      gb = ops::matmul(a.reshape({-1, K}).transpose(0, 1), g.reshape({-1, N}));
    } else {
      gb = ops::sum_to(ops::matmul(a.transpose(-1, -2), g), bs);
    }
  }
  return {ga, gb};
}

}  // namespace

Var matmul(const Var& a_in, const Var& b_in) {
  LINTRA_CHECK(a_in.dim() >= 1 && b_in.dim() >= 1, "matmul: operands must have at least 1 dim, got {} and {}",
               shape_str(a_in.shape()), shape_str(b_in.shape()));
  // 1-d operands: b first, so that a 1-d·1-d product squeezes [1, 1] → [1] → [] (a's dim last).
  if (b_in.dim() == 1) return squeeze(matmul(a_in, unsqueeze(b_in, 1)), -1);
  if (a_in.dim() == 1) return squeeze(matmul(unsqueeze(a_in, 0), b_in), -2);
  Tensor out = ops::matmul(a_in.data(), b_in.data());
  return make_result(out, "matmul", {a_in, b_in}, {a_in.data(), b_in.data()},
                     [as = a_in.shape(), bs = b_in.shape(), a_needs = a_in.requires_grad(),
                      b_needs = b_in.requires_grad()](const std::vector<Tensor>& s, const Tensor& g) {
                       return matmul_grads(s[0], s[1], as, bs, a_needs, b_needs, g);
                     });
}

// Y = C + A·B: dC = dY summed to C's shape (a bias's gradient: the sum over rows), dA and dB as matmul.
Var addmm(const Var& c, const Var& a, const Var& b) {
  Tensor out = ops::addmm(c.data(), a.data(), b.data());
  return make_result(out, "addmm", {c, a, b}, {a.data(), b.data()},
                     [cs = c.shape(), c_needs = c.requires_grad(), as = a.shape(), bs = b.shape(),
                      a_needs = a.requires_grad(), b_needs = b.requires_grad()](const std::vector<Tensor>& s,
                                                                                 const Tensor& g) {
                       std::vector<Tensor> ab = matmul_grads(s[0], s[1], as, bs, a_needs, b_needs, g);
                       return std::vector<Tensor>{c_needs ? ops::sum_to(g, cs) : Tensor(), ab[0], ab[1]};
                     });
}

Var linear(const Var& x, const Var& weight, const Var& bias) {
  LINTRA_CHECK(weight.dim() == 2, "linear: weight must be (out, in), got {}", shape_str(weight.shape()));
  LINTRA_CHECK(x.dim() >= 1 && x.shape().back() == weight.shape()[1],
               "linear: input {} has {} features, weight {} expects {}", shape_str(x.shape()),
               x.dim() >= 1 ? x.shape().back() : 0, shape_str(weight.shape()), weight.shape()[1]);
  if (!bias.defined()) return matmul(x, transpose(weight, 0, 1));
  LINTRA_CHECK(bias.shape() == Shape{weight.shape()[0]}, "linear: bias {} must have shape [{}]",
               shape_str(bias.shape()), weight.shape()[0]);
  if (x.dim() == 1) return squeeze(linear(unsqueeze(x, 0), weight, bias), 0);
  return addmm(bias, x, transpose(weight, 0, 1));  // the bias is written where the GEMM accumulates
}

}  // namespace lintra
