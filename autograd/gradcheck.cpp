#include "autograd/gradcheck.h"

#include <cmath>

#include "autograd/node.h"
#include "core/ops.h"

namespace lintra {

namespace {

// f at the host values `inputs`, evaluated on `device`; the output copied back to the host.
std::vector<double> eval(const GradcheckFn& f, const std::vector<Tensor>& inputs, Device device) {
  NoGradGuard no_grad;
  std::vector<Var> vs;
  for (const Tensor& t : inputs) vs.push_back(Var(t.to(device), false));
  return f(vs).data().cpu().to_vector<double>();
}

}  // namespace

GradcheckResult gradcheck(const GradcheckFn& f, const std::vector<Tensor>& inputs_in, const GradcheckOptions& opt) {
  // The inputs' values live on the host (perturbed there); f runs on the inputs' device.
  const Device device = inputs_in.empty() ? Device::cpu : inputs_in.front().device();
  std::vector<Tensor> inputs;
  for (const Tensor& t : inputs_in) {
    LINTRA_CHECK(!is_floating(t.dtype()) || t.dtype() == DType::f64,
                 "gradcheck: floating inputs must be float64, got {}", t.describe());
    inputs.push_back(t.cpu().contiguous().clone());
  }
  // Analytic Jacobian.
  std::vector<Var> vars;
  for (const Tensor& t : inputs) vars.push_back(Var(t.to(device), t.dtype() == DType::f64));
  Var out = f(vars);
  LINTRA_CHECK(out.dtype() == DType::f64, "gradcheck: the output must be float64, got {}", out.data().describe());
  const int64_t n_out = out.numel();
  std::vector<std::vector<double>> analytic(inputs.size());  // [input][k * n_in + j]
  for (size_t i = 0; i < inputs.size(); ++i) analytic[i].assign(size_t(n_out * inputs[i].numel()), 0.0);
  for (int64_t k = 0; k < n_out; ++k) {
    if (!out.requires_grad()) break;
    for (Var& v : vars)
      if (v.requires_grad()) v.zero_grad();
    Tensor onehot = Tensor::zeros(out.shape(), DType::f64);
    onehot.data<double>()[k] = 1.0;
    out.backward(onehot.to(device), /*retain_graph=*/true);
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!vars[i].requires_grad() || !vars[i].grad().defined()) continue;
      std::vector<double> g = vars[i].grad().cpu().to_vector<double>();
      for (size_t j = 0; j < g.size(); ++j) analytic[i][size_t(k) * g.size() + j] = g[j];
    }
  }
  // Numeric Jacobian and comparison.
  GradcheckResult r;
  int reported = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].dtype() != DType::f64) continue;
    double* x = inputs[i].data<double>();
    const int64_t n_in = inputs[i].numel();
    for (int64_t j = 0; j < n_in; ++j) {
      const double orig = x[j];
      x[j] = orig + opt.eps;
      std::vector<double> plus = eval(f, inputs, device);
      x[j] = orig - opt.eps;
      std::vector<double> minus = eval(f, inputs, device);
      x[j] = orig;
      for (int64_t k = 0; k < n_out; ++k) {
        double num = (plus[size_t(k)] - minus[size_t(k)]) / (2 * opt.eps);
        double ana = analytic[i][size_t(k * n_in + j)];
        double err = std::abs(ana - num);
        r.entries += 1;
        if (!(err <= opt.atol + opt.rtol * std::abs(num))) {
          r.ok = false;
          if (reported++ < opt.max_reported) {
            r.message += fmt::format("input {} element {}, output element {}: analytic {:.10g}, numeric {:.10g}\n", i,
                                     j, k, ana, num);
          }
        }
        if (std::isfinite(err)) r.max_abs_error = std::max(r.max_abs_error, err);
        else r.max_abs_error = INFINITY;
      }
    }
  }
  if (r.ok) {
    r.message = fmt::format("ok ({} Jacobian entries, max abs error {:.3g})", r.entries, r.max_abs_error);
  } else {
    r.message = fmt::format("gradcheck failed ({} of {} entries shown, max abs error {:.3g}):\n{}",
                            std::min(reported, opt.max_reported), r.entries, r.max_abs_error, r.message);
  }
  return r;
}

}  // namespace lintra
