// ops_optim.cpp — the optimizers' in-place updates and the gradient norm (core/ops.h), one kernel each.
#include "core/ops.h"

namespace lintra::ops {

namespace {

void check_state(const Tensor& p, const Tensor& t, const char* op, const char* what) {
  LINTRA_CHECK(t.defined() && t.shape() == p.shape() && t.dtype() == p.dtype() && t.is_contiguous(),
               "{}: {} must be a contiguous {} like the parameter, got {}", op, what, p.describe(),
               t.defined() ? t.describe() : "undefined");
}

void check_param(const Tensor& p, const char* op) {
  LINTRA_CHECK(p.defined() && is_floating(p.dtype()) && p.is_contiguous(),
               "{}: the parameter must be a contiguous floating tensor, got {}", op,
               p.defined() ? p.describe() : "undefined");
}

}  // namespace

void adam_update_(Tensor& p, const Tensor& g, Tensor& m, Tensor& v, const AdamStep& s) {
  check_param(p, "adam_update_");
  check_state(p, g, "adam_update_", "the gradient");
  check_state(p, m, "adam_update_", "exp_avg");
  check_state(p, v, "adam_update_", "exp_avg_sq");
  kernels::on(p).adam_update(p, g, m, v, s.beta1, s.beta2, s.eps, s.decay, s.step, s.rectified);
}

void sgd_update_(Tensor& p, const Tensor& g, Tensor& buf, double lr, double momentum, double weight_decay, bool first) {
  check_param(p, "sgd_update_");
  check_state(p, g, "sgd_update_", "the gradient");
  if (buf.defined()) check_state(p, buf, "sgd_update_", "momentum_buffer");
  kernels::on(p).sgd_update(p, g, buf, lr, momentum, weight_decay, first);
}

double sum_squares(const Tensor& x) {
  LINTRA_CHECK(x.defined() && is_floating(x.dtype()), "sum_squares: expected a floating tensor, got {}",
               x.defined() ? x.describe() : "undefined");
  const Tensor c = x.contiguous();
  Tensor out = Tensor::empty({}, DType::f64, x.device());
  kernels::on(c).sum_squares(c, out);
  return out.cpu().item();
}

}  // namespace lintra::ops
