// ctc.cpp — CTC forward–backward in log space (formulas in ctc.h), greedy decoding, edit distance.
#include "nn/losses/ctc.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"

namespace lintra::nn {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

double lse2(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double m = std::max(a, b);
  return m + std::log(std::exp(a - m) + std::exp(b - m));
}

std::vector<int64_t> checked_vector(const Tensor& t, int64_t B, const char* what) {
  LINTRA_CHECK(t.defined() && t.dtype() == DType::i64 && t.dim() == 1 && t.size(0) == B,
               "ctc: {} must be int64 ({}), got {}", what, B, t.defined() ? t.describe() : "undefined");
  return t.to_vector<int64_t>();
}

// One sequence: fills grad (T×C rows of its frames, zero elsewhere) with ∂(−ln p)/∂z and returns −ln p.
double ctc_sequence(const double* z, int64_t C, int64_t T, const std::vector<int64_t>& label, double* grad) {
  const int64_t L = 2 * int64_t(label.size()) + 1;
  auto ext = [&](int64_t s) { return s % 2 == 0 ? int64_t(0) : label[size_t(s / 2)]; };
  // Skipping s−2 → s is allowed for a label that differs from the label two states back.
  auto can_skip = [&](int64_t s) { return s >= 2 && ext(s) != 0 && ext(s) != ext(s - 2); };
  std::vector<double> alpha(size_t(T * L), kNegInf), beta(size_t(T * L), kNegInf);
  alpha[0] = z[0];
  if (L > 1) alpha[1] = z[ext(1)];
  for (int64_t t = 1; t < T; ++t) {
    const double* a0 = &alpha[size_t((t - 1) * L)];
    double* a1 = &alpha[size_t(t * L)];
    for (int64_t s = 0; s < L; ++s) {
      double v = a0[s];
      if (s >= 1) v = lse2(v, a0[s - 1]);
      if (can_skip(s)) v = lse2(v, a0[s - 2]);
      a1[s] = v == kNegInf ? kNegInf : v + z[t * C + ext(s)];
    }
  }
  double* bl = &beta[size_t((T - 1) * L)];
  bl[L - 1] = 0;
  if (L > 1) bl[L - 2] = 0;
  for (int64_t t = T - 2; t >= 0; --t) {
    const double* b1 = &beta[size_t((t + 1) * L)];
    double* b0 = &beta[size_t(t * L)];
    const double* zn = z + (t + 1) * C;
    for (int64_t s = 0; s < L; ++s) {
      double v = b1[s] + zn[ext(s)];
      if (s + 1 < L) v = lse2(v, b1[s + 1] + zn[ext(s + 1)]);
      if (s + 2 < L && can_skip(s + 2)) v = lse2(v, b1[s + 2] + zn[ext(s + 2)]);
      b0[s] = v;
    }
  }
  const double* al = &alpha[size_t((T - 1) * L)];
  const double logp = L > 1 ? lse2(al[L - 1], al[L - 2]) : al[L - 1];
  for (int64_t t = 0; t < T; ++t)
    for (int64_t s = 0; s < L; ++s) {
      const double v = alpha[size_t(t * L + s)] + beta[size_t(t * L + s)];
      if (v != kNegInf) grad[t * C + ext(s)] -= std::exp(v - logp);
    }
  return -logp;
}

}  // namespace

Var ctc_nll(const Var& log_probs, const Tensor& targets, const Tensor& input_lengths, const Tensor& target_lengths) {
  LINTRA_CHECK(log_probs.defined() && log_probs.dim() == 3 &&
                   (log_probs.dtype() == DType::f32 || log_probs.dtype() == DType::f64),
               "ctc: log_probs must be float (B, T, C), got {}",
               log_probs.defined() ? log_probs.data().describe() : "undefined");
  const int64_t B = log_probs.size(0), T = log_probs.size(1), C = log_probs.size(2);
  LINTRA_CHECK(C >= 2, "ctc: need the blank and at least one label (C >= 2), got C = {}", C);
  LINTRA_CHECK(targets.defined() && targets.dtype() == DType::i64 && targets.dim() == 2 && targets.size(0) == B,
               "ctc: targets must be int64 ({}, S), got {}", B, targets.defined() ? targets.describe() : "undefined");
  const int64_t S = targets.size(1);
  const std::vector<int64_t> in_len = checked_vector(input_lengths, B, "input_lengths");
  const std::vector<int64_t> tg_len = checked_vector(target_lengths, B, "target_lengths");
  const std::vector<int64_t> tg = targets.to_vector<int64_t>();
  const std::vector<double> z = log_probs.data().to_vector<double>();
  std::vector<double> grad(size_t(B * T * C), 0.0), nll(size_t(B), 0.0);
  for (int64_t b = 0; b < B; ++b) {
    const int64_t Tb = in_len[size_t(b)], Sb = tg_len[size_t(b)];
    LINTRA_CHECK(Tb >= 1 && Tb <= T, "ctc: sequence {} has input length {}; it must be in [1, {}]", b, Tb, T);
    LINTRA_CHECK(Sb >= 0 && Sb <= S, "ctc: sequence {} has target length {}; it must be in [0, {}]", b, Sb, S);
    std::vector<int64_t> label(tg.begin() + b * S, tg.begin() + b * S + Sb);
    int64_t repeats = 0;
    for (int64_t i = 0; i < Sb; ++i) {
      LINTRA_CHECK(label[size_t(i)] >= 1 && label[size_t(i)] < C,
                   "ctc: sequence {} target {} is {}; labels must be in [1, {}] (0 is the blank)", b, i,
                   label[size_t(i)], C - 1);
      if (i > 0 && label[size_t(i)] == label[size_t(i - 1)]) ++repeats;
    }
    LINTRA_CHECK(Tb >= Sb + repeats,
                 "ctc: sequence {} cannot be aligned: {} frames for {} labels with {} repeats (needs at least {} "
                 "frames); shorten the target or subsample less",
                 b, Tb, Sb, repeats, Sb + repeats);
    nll[size_t(b)] = ctc_sequence(&z[size_t(b * T * C)], C, Tb, label, &grad[size_t(b * T * C)]);
    LINTRA_CHECK(std::isfinite(nll[size_t(b)]), "ctc: sequence {} has a non-finite loss {} (log_probs contain -inf or nan?)",
                 b, nll[size_t(b)]);
  }
  const DType dt = log_probs.dtype();
  Tensor out = Tensor::from_vector(nll, {B}).to(dt);
  Tensor g = Tensor::from_vector(grad, {B, T, C}).to(dt);
  return make_result(out, "ctc_nll", {log_probs}, {g},
                     [B](const std::vector<Tensor>& saved, const Tensor& grad_out) -> std::vector<Tensor> {
                       return {ops::mul(saved[0], grad_out.reshape({B, 1, 1}))};
                     });
}

Var ctc_loss(const Var& log_probs, const Tensor& targets, const Tensor& input_lengths, const Tensor& target_lengths,
             Reduction reduction) {
  Var nll = ctc_nll(log_probs, targets, input_lengths, target_lengths);
  if (reduction == Reduction::none) return nll;
  if (reduction == Reduction::sum) return sum(nll);
  // mean: NLL_b / max(S_b, 1), averaged over the batch (PyTorch's default).
  Tensor denom = ops::clamp(target_lengths.to(nll.dtype()), 1.0, std::numeric_limits<double>::max());
  return mean(div(nll, Var(denom)));
}

std::vector<std::vector<int64_t>> ctc_greedy_decode(const Tensor& log_probs, const Tensor& lengths) {
  LINTRA_CHECK(log_probs.defined() && log_probs.dim() == 3, "ctc_greedy_decode: log_probs must be (B, T, C), got {}",
               log_probs.defined() ? log_probs.describe() : "undefined");
  const int64_t B = log_probs.size(0), T = log_probs.size(1);
  std::vector<int64_t> len(size_t(B), T);
  if (lengths.defined()) len = checked_vector(lengths, B, "lengths");
  const std::vector<int64_t> best = ops::argmax(log_probs, -1).to_vector<int64_t>();  // (B, T)
  std::vector<std::vector<int64_t>> out(static_cast<size_t>(B));
  for (int64_t b = 0; b < B; ++b) {
    LINTRA_CHECK(len[size_t(b)] >= 0 && len[size_t(b)] <= T, "ctc_greedy_decode: sequence {} has length {} outside [0, {}]",
                 b, len[size_t(b)], T);
    int64_t prev = -1;
    for (int64_t t = 0; t < len[size_t(b)]; ++t) {
      const int64_t k = best[size_t(b * T + t)];
      if (k != prev && k != 0) out[size_t(b)].push_back(k);
      prev = k;
    }
  }
  return out;
}

int64_t edit_distance(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = int64_t(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    int64_t diag = row[0];
    row[0] = int64_t(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      const int64_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace lintra::nn
