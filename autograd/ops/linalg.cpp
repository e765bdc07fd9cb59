// ops/linalg.cpp — matmul and linear.
#include "autograd/functional.h"

namespace lintra {

// C = A·B:  dA = dC·Bᵀ,  dB = Aᵀ·dC, each summed over broadcast batch dims. Transposes are views
// (no copies; the BLAS wrapper reads them as CblasTrans). When B is a shared matrix and A is
// batched, dB is one GEMM over all rows: (A reshaped to (rows, K))ᵀ · (dC reshaped to (rows, N)).
Var matmul(const Var& a_in, const Var& b_in) {
  LINTRA_CHECK(a_in.dim() >= 1 && b_in.dim() >= 1, "matmul: operands must have at least 1 dim, got {} and {}",
               shape_str(a_in.shape()), shape_str(b_in.shape()));
  // 1-d operands: b first, so that a 1-d·1-d product squeezes [1, 1] → [1] → [] (a's dim last).
  if (b_in.dim() == 1) return squeeze(matmul(a_in, unsqueeze(b_in, 1)), -1);
  if (a_in.dim() == 1) return squeeze(matmul(unsqueeze(a_in, 0), b_in), -2);
  Shape as = a_in.shape(), bs = b_in.shape();
  Tensor out = ops::matmul(a_in.data(), b_in.data());
  return make_result(out, "matmul", {a_in, b_in}, {a_in.data(), b_in.data()},
                     [as, bs, a_needs = a_in.requires_grad(), b_needs = b_in.requires_grad()](const std::vector<Tensor>& s, const Tensor& g) {
                       const Tensor& a = s[0];
                       const Tensor& b = s[1];
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
                       return std::vector<Tensor>{ga, gb};
                     });
}

Var linear(const Var& x, const Var& weight, const Var& bias) {
  LINTRA_CHECK(weight.dim() == 2, "linear: weight must be (out, in), got {}", shape_str(weight.shape()));
  LINTRA_CHECK(x.dim() >= 1 && x.shape().back() == weight.shape()[1],
               "linear: input {} has {} features, weight {} expects {}", shape_str(x.shape()),
               x.dim() >= 1 ? x.shape().back() : 0, shape_str(weight.shape()), weight.shape()[1]);
  Var y = matmul(x, transpose(weight, 0, 1));
  if (bias.defined()) {
    LINTRA_CHECK(bias.shape() == Shape{weight.shape()[0]}, "linear: bias {} must have shape [{}]",
                 shape_str(bias.shape()), weight.shape()[0]);
    y = add(y, bias);
  }
  return y;
}

}  // namespace lintra
