// softmax_attention.cpp — "softmax": full softmax attention (Vaswani et al. 2017), the baseline.
//
//   A  = softmax(τ·Q Kᵀ + mask)   (B, H, N, S); τ = softmax_temp, default 1/√E; mask 0 / −inf
//   V' = Dropout(A) · V           (B, H, N, M)
// Masks: full, causal (key j ≤ query i), key lengths. A query with no key left (key length 0)
// outputs zeros instead of 0/0. Time O(B·H·N·S·(E + M)) as two batched GEMMs (core matmul
// parallelises over B·H); memory O(B·H·N·S) for the attention matrix kept for backward.
//
// Masks reach the scores as a boolean `allowed` (B or 1, 1, N, S) and one fused masked softmax
// (autograd masked_softmax: the kernel masked_softmax_forward), which outputs 0 on rows with no key.
//
// Recurrent form, "stateful softmax" (PAPER.md Table 4, fast-transformers' RecurrentFullAttention):
// a key/value cache grows by one row per step and step t attends to all t + 1 cached keys, which
// equals row t of the causal batch form. O(t·(E + M)) time per head and step, O(t·(E + M)) memory.
// Without a recorded graph the cache is a buffer that doubles its capacity and is written in
// place; with one, the cache grows by concatenation so gradients flow through it. For generation,
// make_raw_step() gives the same on raw float32 buffers with a cache sized once (max_steps rows).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "autograd/functional.h"
#include "core/scalar_ops.h"
#include "nn/attention/registry.h"

namespace lintra::nn {

namespace {

// Appends x_t (B, H, D) as row t of the cache `name` (B, H, capacity, D) in place; returns rows 0…t.
Var append_in_place(RecurrentState& state, const std::string& name, const Var& x_t, int64_t t) {
  Tensor buf = state.has(name) ? state.at(name).data() : Tensor();
  if (!buf.defined() || buf.size(2) <= t) {
    const int64_t capacity = std::max<int64_t>({16, t + 1, buf.defined() ? 2 * buf.size(2) : 0});
    Tensor grown = Tensor::empty({x_t.size(0), x_t.size(1), capacity, x_t.size(2)}, x_t.dtype(), x_t.data().device());
    if (t > 0) grown.narrow(2, 0, t).copy_(buf.narrow(2, 0, t));
    buf = grown;
  }
  buf.narrow(2, t, 1).copy_(x_t.data().unsqueeze(2));
  state.values[name] = Var(buf);
  return Var(buf.narrow(2, 0, t + 1));
}

// Concatenates x_t as row t (differentiable); returns rows 0…t, which also become the cache.
Var append_concat(RecurrentState& state, const std::string& name, const Var& x_t, int64_t t) {
  Var row = unsqueeze(x_t, 2);
  Var all = t == 0 ? row : cat({narrow(state.at(name), 2, 0, t), row}, 2);
  state.values[name] = all;
  return all;
}

// Stateful softmax on raw buffers: a key/value cache of max_steps rows per sequence and head;
// step t writes row t and attends to rows 0 … t (O(t·(E + M)) per head).
class SoftmaxRawStep : public RawRecurrentStep {
 public:
  SoftmaxRawStep(const RawStepShape& s, float temperature)
      : H_(s.heads), E_(s.query_dim), M_(s.value_dim), T_(s.max_steps), tau_(temperature), batch_(s.batch),
        K_(size_t(s.batch * s.heads * s.max_steps * s.query_dim)),
        V_(size_t(s.batch * s.heads * s.max_steps * s.value_dim)), scores_(size_t(s.batch * s.heads * s.max_steps)) {}

  void step(int64_t t, const RawStepIO& io, int64_t h0, int64_t h1) override {
    const int64_t E = E_, M = M_;
    for (int64_t b = 0; b < batch_; ++b)
      for (int64_t h = h0; h < h1; ++h) {
        const int64_t bh = b * H_ + h;
        const float* q = io.q + b * io.in_stride + h * E;
        float* K = K_.data() + bh * T_ * E;
        float* V = V_.data() + bh * T_ * M;
        float* a = scores_.data() + bh * T_;
        float* y = io.y + b * io.out_stride + h * M;
        std::copy(io.k + b * io.in_stride + h * E, io.k + b * io.in_stride + (h + 1) * E, K + t * E);
        std::copy(io.v + b * io.in_stride + h * M, io.v + b * io.in_stride + (h + 1) * M, V + t * M);
        float top = -std::numeric_limits<float>::infinity();
        for (int64_t j = 0; j <= t; ++j) {  // a_j = (τ q)·K_j
          const float* Kj = K + j * E;
          float d = 0;
#pragma omp simd reduction(+ : d)
          for (int64_t e = 0; e < E; ++e) d += (q[e] * tau_) * Kj[e];
          a[j] = d;
          top = std::max(top, d);
        }
        float total = 0;
        for (int64_t j = 0; j <= t; ++j) total += (a[j] = scalar::exp(a[j] - top));
        const float inv = 1.0f / total;
        std::fill(y, y + M, 0.0f);
        for (int64_t j = 0; j <= t; ++j) {  // y = Σ_j softmax(a)_j V_j
          const float w = a[j] * inv;
          const float* Vj = V + j * M;
#pragma omp simd
          for (int64_t m = 0; m < M; ++m) y[m] += w * Vj[m];
        }
      }
  }

 private:
  int64_t H_, E_, M_, T_;
  float tau_;
  int64_t batch_;
  std::vector<float> K_, V_, scores_;
};

class SoftmaxAttention : public InnerAttention {
 public:
  SoftmaxAttention(std::optional<double> temp, double dropout, Generator gen)
      : InnerAttention("softmax"), temp_(temp), dropout_(dropout), gen_(gen) {
    register_generator("generator", &gen_);
  }

  MaskSupport mask_support() const override { return {.full = true, .causal = true, .key_lengths = true}; }
  bool has_recurrent() const override { return true; }
  std::unique_ptr<RawRecurrentStep> make_raw_step(const RawStepShape& shape) const override {
    return std::make_unique<SoftmaxRawStep>(shape, float(temperature(shape.query_dim)));
  }
  std::string extra_repr() const override {
    return fmt::format("softmax_temp={}, attention_dropout={:g}", temp_ ? fmt::format("{:g}", *temp_) : "1/sqrt(E)",
                       dropout_);
  }

 protected:
  Var attend(const Var& q, const Var& k, const Var& v, const AttentionMasks& masks) override {
    const int64_t B = q.size(0), N = q.size(2), S = k.size(2);
    Var scores = matmul(mul(q, temperature(q.size(3))), transpose(k, 2, 3));  // (B, H, N, S)
    Tensor allowed = masks.allowed(B, N, S, q.data().device());
    Var a = allowed.defined() ? masked_softmax(scores, allowed) : softmax(scores, -1);
    return matmul(dropout(a, dropout_, gen_, is_training()), v);  // (B, H, N, M)
  }

  Var attend_step(const Var& q_t, const Var& k_t, const Var& v_t, RecurrentState& state) override {
    const int64_t t = state.steps;
    if (t > 0) {
      const Shape& ks = state.at("K").shape();
      LINTRA_CHECK(ks[0] == k_t.size(0) && ks[1] == k_t.size(1) && ks[3] == k_t.size(2) &&
                       state.at("V").shape()[3] == v_t.size(2),
                   "attention 'softmax': step() inputs k_t {} / v_t {} do not match the cached keys {}",
                   shape_str(k_t.shape()), shape_str(v_t.shape()), shape_str(ks));
    }
    const bool graph = grad_enabled() && (q_t.requires_grad() || k_t.requires_grad() || v_t.requires_grad() ||
                                          (t > 0 && (state.at("K").requires_grad() || state.at("V").requires_grad())));
    Var K = graph ? append_concat(state, "K", k_t, t) : append_in_place(state, "K", k_t, t);  // (B, H, t+1, E)
    Var V = graph ? append_concat(state, "V", v_t, t) : append_in_place(state, "V", v_t, t);  // (B, H, t+1, M)
    Var scores = matmul(unsqueeze(mul(q_t, temperature(q_t.size(2))), 2), transpose(K, 2, 3));  // (B, H, 1, t+1)
    Var a = dropout(softmax(scores, -1), dropout_, gen_, is_training());
    return squeeze(matmul(a, V), 2);  // (B, H, M)
  }

 private:
  double temperature(int64_t E) const { return temp_ ? *temp_ : 1.0 / std::sqrt(double(E)); }

  std::optional<double> temp_;
  double dropout_;
  Generator gen_;
};

}  // namespace

void register_softmax_attention(AttentionRegistry& registry) {
  registry.add(
      "softmax",
      [](const AttentionParams& p, const AttentionContext& ctx) {
        std::optional<double> temp;
        if (p.has("softmax_temp")) temp = p.get_double("softmax_temp");
        return std::make_shared<SoftmaxAttention>(temp, p.get_double("attention_dropout"), ctx.generator);
      },
      {{"softmax_temp", ParamSpec::optional_real(0, INFINITY, "scale of QKᵀ; 1/sqrt(E) when absent")},
       {"attention_dropout", ParamSpec::real(0.1, 0, 1, "dropout on the attention matrix").exclusive_max()}},
      "full softmax attention; masks: full, causal, key lengths; recurrent: key/value cache");
}

}  // namespace lintra::nn
