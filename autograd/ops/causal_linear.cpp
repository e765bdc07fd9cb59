// ops/causal_linear.cpp — the fused causal linear product (the numerator of causal linear
// attention) with the paper's constant-memory backward, and the normaliser that divides it.
//
//   out_i = Σ_{j≤i} (q_i·k_j) v_j        q, k (B, H, N, E), v (B, H, N, M) → out (B, H, N, M)
//
// Equal to matmul(q, kᵀ) masked with tril, then matmul with v — but in O(N·E·M) time per (b, h)
// and without the N×N matrix (core/cpu/causal_product.cpp). Saves only q, k and v: the backward
// recomputes the prefix and suffix states instead of storing any per-step state.
#include "autograd/functional.h"

namespace lintra {

namespace {

void check_causal_linear_inputs(const char* op, const Tensor& q, const Tensor& k, const Tensor& v) {
  LINTRA_CHECK(q.dim() == 4 && k.dim() == 4 && v.dim() == 4,
               "{}: q, k and v must be 4-d (B, H, N, E|M), got q {}, k {}, v {}",
               op, shape_str(q.shape()), shape_str(k.shape()), shape_str(v.shape()));
  LINTRA_CHECK(q.shape() == k.shape(),
               "{}: q {} and k {} must have the same shape (B, H, N, E)", op, shape_str(q.shape()),
               shape_str(k.shape()));
  LINTRA_CHECK(v.size(0) == q.size(0) && v.size(1) == q.size(1) && v.size(2) == q.size(2),
               "{}: v {} must share (B, H, N) = ({}, {}, {}) with q {}", op, shape_str(v.shape()),
               q.size(0), q.size(1), q.size(2), shape_str(q.shape()));
  LINTRA_CHECK(is_floating(q.dtype()) && q.dtype() == k.dtype() && q.dtype() == v.dtype(),
               "{}: q, k and v must have one floating dtype, got {}, {} and {}", op, q.dtype(),
               k.dtype(), v.dtype());
  LINTRA_CHECK(q.device() == k.device() && q.device() == v.device(),
               "{}: q, k and v must be on one device", op);
}

}  // namespace

// Forward: the kernel above. Backward (PAPER.md §3, eqs 13–15; Algorithm 1), with G = ∂L/∂out:
//   ∂L/∂q_i = S_i g_i,   S_i = Σ_{j≤i} k_j v_jᵀ        (prefix sum, recomputed)
//   ∂L/∂k_i = R_i v_i,   ∂L/∂v_i = R_iᵀ k_i,   R_i = Σ_{j≥i} q_j g_jᵀ   (suffix sum)
// all three from one call of the backward kernel.
Var causal_linear_product(const Var& q, const Var& k, const Var& v) {
  check_causal_linear_inputs("causal_linear_product", q.data(), k.data(), v.data());
  Tensor out = Tensor::empty({q.shape()[0], q.shape()[1], q.shape()[2], v.shape()[3]}, q.dtype(), q.data().device());
  kernels::on(out).causal_product_forward(q.data(), k.data(), v.data(), out);
  return make_result(out, "causal_linear_product", {q, k, v}, {q.data(), k.data(), v.data()},
                     [](const std::vector<Tensor>& s, const Tensor& g) {
                       const Tensor &qs = s[0], &ks = s[1], &vs = s[2];
                       Tensor gq = Tensor::empty(qs.shape(), qs.dtype(), qs.device());
                       Tensor gk = Tensor::empty(ks.shape(), ks.dtype(), ks.device());
                       Tensor gv = Tensor::empty(vs.shape(), vs.dtype(), vs.device());
                       kernels::on(gq).causal_product_backward(qs, ks, vs, g, gq, gk, gv);
                       return std::vector<Tensor>{gq, gk, gv};
                     });
}

// The normaliser (PAPER.md §3 eq 12) in one op: out_i = num_i / (q_i·Σ_{j≤i} k_j + eps). Saves q, k,
// out and den (B, H, N); the backward kernel returns ∂L/∂q, ∂L/∂k and ∂L/∂num
// (core/cpu/causal_normalise.cpp), in place of the cumsum, mul, sum, add and div it replaces.
Var causal_linear_normalise(const Var& q, const Var& k, const Var& num, double eps) {
  check_causal_linear_inputs("causal_linear_normalise", q.data(), k.data(), num.data());
  const Tensor& qd = q.data();
  Tensor out = Tensor::empty(num.shape(), num.dtype(), qd.device());
  Tensor den = Tensor::empty({qd.size(0), qd.size(1), qd.size(2)}, qd.dtype(), qd.device());
  kernels::on(out).causal_normalise_forward(qd, k.data(), num.data(), eps, out, den);
  return make_result(out, "causal_linear_normalise", {q, k, num}, {qd, k.data(), out, den},
                     [](const std::vector<Tensor>& s, const Tensor& g) {
                       const Tensor &qs = s[0], &ks = s[1], &outs = s[2], &dens = s[3];
                       Tensor gq = Tensor::empty(qs.shape(), qs.dtype(), qs.device());
                       Tensor gk = Tensor::empty(ks.shape(), ks.dtype(), ks.device());
                       Tensor gnum = Tensor::empty(outs.shape(), outs.dtype(), outs.device());
                       kernels::on(gq).causal_normalise_backward(qs, ks, outs, dens, g, gnum, gq, gk);
                       return std::vector<Tensor>{gq, gk, gnum};
                     });
}

}  // namespace lintra
