// ops_models.cpp — the fused ops of the models (core/ops.h): masked softmax, reformer's round plan, the
// mixture-of-logistics sampler and CTC. Each validates its inputs and calls one kernel of the list; the
// kernels' contracts are in core/kernels.h.
#include "core/ops.h"

namespace lintra::ops {

Tensor masked_softmax(const Tensor& x, const Tensor& allowed) {
  LINTRA_CHECK(x.defined() && is_floating(x.dtype()) && x.dim() >= 1, "masked_softmax: expected a floating tensor "
               "with a last dim, got {}", x.defined() ? x.describe() : "undefined");
  LINTRA_CHECK(allowed.defined() && allowed.dtype() == kBool, "masked_softmax: allowed must be uint8, got {}",
               allowed.defined() ? allowed.describe() : "undefined");
  const Shape b = broadcast_shapes(allowed.shape(), x.shape(), "masked_softmax");
  LINTRA_CHECK(b == x.shape(), "masked_softmax: allowed {} does not broadcast to x {}", shape_str(allowed.shape()),
               shape_str(x.shape()));
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  kernels::on(out).masked_softmax_forward(x, allowed, out);
  return out;
}

LshPlan lsh_plan(const Tensor& buckets, const Tensor& lengths, int64_t chunk, bool causal, bool masked,
                 double self_logit, DType dtype) {
  LINTRA_CHECK(buckets.dtype() == DType::i64 && buckets.dim() == 3, "lsh_plan: buckets must be int64 (B, H, N), got {}",
               buckets.describe());
  const int64_t B = buckets.size(0), H = buckets.size(1), N = buckets.size(2);
  LINTRA_CHECK(lengths.dtype() == DType::i64 && lengths.shape() == Shape{B},
               "lsh_plan: lengths must be int64 ({}), got {}", B, lengths.describe());
  LINTRA_CHECK(chunk >= 1 && chunk <= std::max<int64_t>(N, 1), "lsh_plan: chunk {} outside [1, N = {}]", chunk, N);
  const int64_t BH = B * H, nc = (N + chunk - 1) / chunk, W = nc > 1 ? 2 * chunk : chunk;
  const Device dev = buckets.device();
  LshPlan p{Tensor::empty({BH * nc * chunk}, DType::i64, dev), Tensor::empty({BH * nc * W}, DType::i64, dev),
            Tensor::empty({BH * N}, DType::i64, dev), Tensor::empty({BH, nc, chunk, W}, dtype, dev),
            Tensor::empty({BH, nc, chunk, 1}, dtype, dev)};
  kernels::on(buckets).lsh_plan(buckets, lengths, causal, masked, self_logit, p.query_rows, p.window_rows, p.scatter,
                                p.additive, p.row_ok);
  return p;
}

MixtureSample sample_mol(const Tensor& params, const Tensor& uniforms, int64_t levels) {
  LINTRA_CHECK(params.dim() == 2 && params.size(1) % 3 == 0 && params.size(1) > 0 && is_floating(params.dtype()),
               "sample_mol: params must be floating (R, 3K), got {}", params.describe());
  const int64_t R = params.size(0), K = params.size(1) / 3;
  LINTRA_CHECK(uniforms.dtype() == DType::f64 && uniforms.shape() == Shape({R, K + 1}),
               "sample_mol: uniforms must be float64 ({}, {}), got {}", R, K + 1, uniforms.describe());
  MixtureSample s{Tensor::empty({R}, DType::i64, params.device())};
  Tensor bad = Tensor::empty({2}, DType::i64, params.device());
  kernels::on(params).sample_mol(params, uniforms, levels, s.values, bad);
  const std::vector<int64_t> b = bad.cpu().to_vector<int64_t>();
  s.bad_row = b[0];
  s.bad_component = b[1];
  return s;
}

CtcLoss ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                 const Tensor& target_lengths) {
  LINTRA_CHECK(log_probs.dim() == 3 && is_floating(log_probs.dtype()), "ctc_loss: log_probs must be float (B, T, C), "
               "got {}", log_probs.describe());
  const int64_t B = log_probs.size(0);
  LINTRA_CHECK(targets.dtype() == DType::i64 && targets.dim() == 2 && targets.size(0) == B,
               "ctc_loss: targets must be int64 ({}, S), got {}", B, targets.describe());
  for (const Tensor* t : {&input_lengths, &target_lengths})
    LINTRA_CHECK(t->dtype() == DType::i64 && t->shape() == Shape{B}, "ctc_loss: lengths must be int64 ({}), got {}", B,
                 t->describe());
  const Device dev = log_probs.device();
  CtcLoss r{Tensor::empty({B}, log_probs.dtype(), dev), Tensor::empty(log_probs.shape(), log_probs.dtype(), dev),
            Tensor::empty({B, 3}, DType::i64, dev)};
  kernels::on(log_probs).ctc_loss(log_probs, targets, input_lengths, target_lengths, r.nll, r.grad, r.status);
  return r;
}

}  // namespace lintra::ops
