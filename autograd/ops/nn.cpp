// ops/nn.cpp — fused nn ops with their own backward (each tested against its composed form).
#include <cmath>

#include "autograd/functional.h"

namespace lintra {

// y = softmax(x):      dx = y·(g − Σ g·y)
Var softmax(const Var& x, int64_t dim) {
  Tensor y = ops::softmax(x.data(), dim);
  return make_result(y, "softmax", {x}, {y}, [dim](const std::vector<Tensor>& s, const Tensor& g) {
    return std::vector<Tensor>{ops::softmax_backward(s[0], g, dim, false)};
  });
}

// y = log_softmax(x):  dx = g − exp(y)·Σ g
Var log_softmax(const Var& x, int64_t dim) {
  Tensor y = ops::log_softmax(x.data(), dim);
  return make_result(y, "log_softmax", {x}, {y}, [dim](const std::vector<Tensor>& s, const Tensor& g) {
    return std::vector<Tensor>{ops::softmax_backward(s[0], g, dim, true)};
  });
}

// y = masked_softmax(x, allowed): softmax among the allowed keys, 0 elsewhere and on empty rows.
// dx = y·(g − Σ g·y), the softmax backward, which is 0 wherever y is 0.
Var masked_softmax(const Var& x, const Tensor& allowed) {
  Tensor y = ops::masked_softmax(x.data(), allowed);
  return make_result(y, "masked_softmax", {x}, {y}, [](const std::vector<Tensor>& s, const Tensor& g) {
    return std::vector<Tensor>{ops::softmax_backward(s[0], g, -1, false)};
  });
}

// Layer norm over the last dim; the backward formula is in core/cpu/layer_norm.cpp.
Var layer_norm(const Var& x, const Var& gamma, const Var& beta, double eps) {
  ops::LayerNormResult r = ops::layer_norm(x.data(), gamma.data(), beta.data(), eps);
  return make_result(r.y, "layer_norm", {x, gamma, beta}, {x.data(), gamma.data(), r.mean, r.rstd},
                     [](const std::vector<Tensor>& s, const Tensor& g) {
                       ops::LayerNormResult fwd{Tensor(), s[2], s[3]};
                       ops::LayerNormGrads d = ops::layer_norm_backward(g, s[0], fwd, s[1]);
                       return std::vector<Tensor>{d.dx, d.dgamma, d.dbeta};
                     });
}

Var dropout(const Var& x, double p, Generator& gen, bool training) {
  LINTRA_CHECK(p >= 0 && p < 1, "dropout: probability {} is outside [0, 1)", p);
  if (!training || p == 0) return x;
  if (x.dtype() == DType::f32) {  // one pass, no mask in memory; the same numbers as the form below
    const ops::DropoutMask mask = ops::draw_dropout_mask(gen, x.numel(), 1 - p);
    return make_result(ops::apply_dropout(x.data(), mask), "dropout", {x}, {},
                       [mask](const std::vector<Tensor>&, const Tensor& g) {
                         return std::vector<Tensor>{ops::apply_dropout(g, mask)};
                       });
  }
  Tensor mask = ops::mul(ops::bernoulli(x.shape(), 1 - p, gen, x.dtype(), x.data().device()), 1.0 / (1 - p));
  return mul(x, Var(mask));
}

// y = dropout(relu(x)) in one pass (kernels.h `dropout` gated by x): dx = dropout(g) where x > 0, 0
// elsewhere, with the same mask — bit for bit relu then dropout, without relu's output in memory.
Var relu_dropout(const Var& x, double p, Generator& gen, bool training) {
  LINTRA_CHECK(p >= 0 && p < 1, "relu_dropout: probability {} is outside [0, 1)", p);
  if (!training || p == 0 || x.dtype() != DType::f32) return dropout(relu(x), p, gen, training);
  const ops::DropoutMask mask = ops::draw_dropout_mask(gen, x.numel(), 1 - p);
  return make_result(ops::apply_dropout(x.data(), mask, x.data()), "relu_dropout", {x}, {x.data()},
                     [mask](const std::vector<Tensor>& s, const Tensor& g) {
                       return std::vector<Tensor>{ops::apply_dropout(g, mask, s[0])};
                     });
}

// y = residual + dropout(x) in one pass (kernels.h `dropout` with a residual): d residual = g,
// dx = dropout(g) — bit for bit add(residual, dropout(x)). residual and x have one shape.
Var dropout_add(const Var& residual, const Var& x, double p, Generator& gen, bool training) {
  LINTRA_CHECK(residual.shape() == x.shape(), "dropout_add: the residual {} and x {} differ in shape",
               shape_str(residual.shape()), shape_str(x.shape()));
  LINTRA_CHECK(p >= 0 && p < 1, "dropout_add: probability {} is outside [0, 1)", p);
  if (!training || p == 0 || x.dtype() != DType::f32 || residual.dtype() != DType::f32)
    return add(residual, dropout(x, p, gen, training));
  const ops::DropoutMask mask = ops::draw_dropout_mask(gen, x.numel(), 1 - p);
  return make_result(ops::apply_dropout(x.data(), mask, Tensor(), residual.data()), "dropout_add", {residual, x}, {},
                     [mask](const std::vector<Tensor>&, const Tensor& g) {
                       return std::vector<Tensor>{g, ops::apply_dropout(g, mask)};
                     });
}

// loss_i = −log_softmax(z_i)[t_i] over rows whose target is not ignore_index.
// dz_i = (softmax(z_i) − onehot(t_i))·w_i with w_i = g (sum), g/count (mean), g_i (none); 0 if ignored.
Var cross_entropy(const Var& logits, const Tensor& target, int64_t ignore_index, Reduction reduction) {
  LINTRA_CHECK(logits.dim() >= 1, "cross_entropy: logits must have a class dim, got {}", shape_str(logits.shape()));
  LINTRA_CHECK(target.dtype() == DType::i64, "cross_entropy: targets must be int64, got {}", target.dtype());
  Shape rows(logits.shape().begin(), logits.shape().end() - 1);
  LINTRA_CHECK(target.shape() == rows, "cross_entropy: logits {} need targets of shape {}, got {}",
               shape_str(logits.shape()), shape_str(rows), shape_str(target.shape()));
  const int64_t C = logits.shape().back();
  Tensor z = logits.data().reshape({-1, C});
  Tensor t = target.reshape({-1}).contiguous();
  const int64_t R = t.numel();
  // Valid rows and safe targets (ignored rows read class 0, then get weight 0).
  Tensor valid = ops::ne(t, double(ignore_index));
  Tensor safe_t = ops::where(valid, t, Tensor::scalar(0, DType::i64, t.device()));
  const ops::IndexRange bad = ops::index_range(safe_t, 0, C);
  LINTRA_CHECK(bad.outside == 0, "cross_entropy: target {} at position {} is outside [0, {})", bad.value,
               bad.position, C);
  Tensor logp = ops::log_softmax(z, -1);
  Tensor picked = ops::gather(logp, 1, safe_t.unsqueeze(1)).reshape({R});
  Tensor validf = valid.to(logits.dtype());
  Tensor nll = ops::neg(ops::mul(picked, validf));
  // 1 / max(count, 1) as a 0-d tensor of the logits' dtype: computed in float64, as a double divisor would be.
  Tensor inv_count = ops::reciprocal(ops::clamp(ops::sum(valid.to(DType::f64)), 1.0, INFINITY)).to(logits.dtype());
  Tensor out;
  if (reduction == Reduction::none) out = nll.reshape(rows);
  else if (reduction == Reduction::sum) out = ops::sum(nll);
  else out = ops::mul(ops::sum(nll), inv_count);
  Shape ls = logits.shape();
  return make_result(out, "cross_entropy", {logits}, {logp, safe_t, validf, inv_count},
                     [reduction, ls, R](const std::vector<Tensor>& s, const Tensor& g) {
                       Tensor w;  // per-row weight (R, 1)
                       if (reduction == Reduction::none) w = ops::mul(g.reshape({R}), s[2]);
                       else if (reduction == Reduction::sum) w = ops::mul(s[2], g);
                       else w = ops::mul(s[2], ops::mul(g, s[3]));
                       Tensor grad = ops::exp(s[0]);
                       grad = ops::scatter_add(grad, 1, s[1].unsqueeze(1),
                                               Tensor::full({R, 1}, -1.0, grad.dtype(), grad.device()));
                       grad = ops::mul(grad, w.reshape({R, 1}));
                       return std::vector<Tensor>{grad.reshape(ls)};
                     });
}

}  // namespace lintra
