// cpu/ctc.cpp — CTC forward–backward in log space, in float64 (the recursions and the gradient are in
// nn/losses/ctc.h): α over frames t = 0 … T_b − 1 and β backwards, ln p = lse(α_{T−1}(L−1), α_{T−1}(L−2)),
// ∂(−ln p)/∂z_t(k) = −Σ_{s : l'_s = k} exp(α_t(s) + β_t(s) − ln p). Per sequence O(T_b·(2S_b + 1)) time
// and memory (α, β); OpenMP over the batch, each sequence writing only its own rows. Bad targets are
// reported in `status` (core/kernels.h), never thrown.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/cpu/team_loop.h"
#include "core/kernels.h"

namespace lintra::kernels::cpu {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

double lse2(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double m = std::max(a, b);
  return m + std::log(std::exp(a - m) + std::exp(b - m));
}

struct Extended {  // l' = (0, l_1, 0, …, l_S, 0)
  const int64_t* label;
  int64_t L;
  int64_t at(int64_t s) const { return s % 2 == 0 ? 0 : label[s / 2]; }
  // s−2 → s is allowed for a label that differs from the label two states back.
  bool can_skip(int64_t s) const { return s >= 2 && at(s) != 0 && at(s) != at(s - 2); }
};

void forward_alpha(const double* z, int64_t C, int64_t T, const Extended& e, std::vector<double>& alpha) {
  const int64_t L = e.L;
  alpha.assign(size_t(T * L), kNegInf);
  alpha[0] = z[0];
  if (L > 1) alpha[1] = z[e.at(1)];
  for (int64_t t = 1; t < T; ++t) {
    const double* a0 = &alpha[size_t((t - 1) * L)];
    double* a1 = &alpha[size_t(t * L)];
    for (int64_t s = 0; s < L; ++s) {
      double v = a0[s];
      if (s >= 1) v = lse2(v, a0[s - 1]);
      if (e.can_skip(s)) v = lse2(v, a0[s - 2]);
      a1[s] = v == kNegInf ? kNegInf : v + z[t * C + e.at(s)];
    }
  }
}

void backward_beta(const double* z, int64_t C, int64_t T, const Extended& e, std::vector<double>& beta) {
  const int64_t L = e.L;
  beta.assign(size_t(T * L), kNegInf);
  double* bl = &beta[size_t((T - 1) * L)];
  bl[L - 1] = 0;
  if (L > 1) bl[L - 2] = 0;
  for (int64_t t = T - 2; t >= 0; --t) {
    const double* b1 = &beta[size_t((t + 1) * L)];
    double* b0 = &beta[size_t(t * L)];
    const double* zn = z + (t + 1) * C;
    for (int64_t s = 0; s < L; ++s) {
      double v = b1[s] + zn[e.at(s)];
      if (s + 1 < L) v = lse2(v, b1[s + 1] + zn[e.at(s + 1)]);
      if (s + 2 < L && e.can_skip(s + 2)) v = lse2(v, b1[s + 2] + zn[e.at(s + 2)]);
      b0[s] = v;
    }
  }
}

// One sequence: grad (T×C, zeroed by the caller) gets ∂(−ln p)/∂z; returns −ln p.
double ctc_sequence(const double* z, int64_t C, int64_t T, const Extended& e, double* grad) {
  std::vector<double> alpha, beta;
  forward_alpha(z, C, T, e, alpha);
  backward_beta(z, C, T, e, beta);
  const int64_t L = e.L;
  const double* al = &alpha[size_t((T - 1) * L)];
  const double logp = L > 1 ? lse2(al[L - 1], al[L - 2]) : al[L - 1];
  for (int64_t t = 0; t < T; ++t)
    for (int64_t s = 0; s < L; ++s) {
      const double v = alpha[size_t(t * L + s)] + beta[size_t(t * L + s)];
      if (v != kNegInf) grad[t * C + e.at(s)] -= std::exp(v - logp);
    }
  return -logp;
}

// The status of a target (core/kernels.h ctc_loss): labels in [1, C) and enough frames.
void check_target(const int64_t* label, int64_t Sb, int64_t Tb, int64_t C, int64_t* status) {
  int64_t repeats = 0;
  for (int64_t i = 0; i < Sb; ++i) {
    if (label[i] < 1 || label[i] >= C) {
      status[0] = 1, status[1] = i, status[2] = label[i];
      return;
    }
    if (i > 0 && label[i] == label[i - 1]) ++repeats;
  }
  if (Tb < Sb + repeats) status[0] = 2, status[1] = repeats;
}

}  // namespace

void ctc_loss(const Tensor& log_probs, const Tensor& targets_in, const Tensor& input_lengths,
              const Tensor& target_lengths, Tensor& nll, Tensor& grad, Tensor& status) {
  const int64_t B = log_probs.size(0), T = log_probs.size(1), C = log_probs.size(2);
  const Tensor z64 = log_probs.to(DType::f64).contiguous(), targets = targets_in.contiguous();
  const Tensor in_len = input_lengths.contiguous(), tg_len = target_lengths.contiguous();
  const int64_t S = targets.size(1);
  std::vector<double> g(size_t(B * T * C), 0.0), loss(size_t(B), 0.0);
  const double* z = z64.data<double>();
  const int64_t *tg = targets.data<int64_t>(), *il = in_len.data<int64_t>(), *tl = tg_len.data<int64_t>();
  int64_t* st = status.data<int64_t>();
  team_for(B, true, [&](int64_t b) {
    int64_t* sb = st + 3 * b;
    sb[0] = sb[1] = sb[2] = 0;
    check_target(tg + b * S, tl[b], il[b], C, sb);
    if (sb[0] != 0) return;
    loss[size_t(b)] = ctc_sequence(z + b * T * C, C, il[b], Extended{tg + b * S, 2 * tl[b] + 1}, &g[size_t(b * T * C)]);
    if (!std::isfinite(loss[size_t(b)])) sb[0] = 3;
  });
  dispatch_float(nll.dtype(), "ctc_loss", [&]<typename T_>() {
    T_* np = nll.data<T_>();
    T_* gp = grad.data<T_>();
    for (int64_t b = 0; b < B; ++b) np[b] = T_(loss[size_t(b)]);
    for (int64_t i = 0; i < B * T * C; ++i) gp[i] = T_(g[size_t(i)]);
  });
}

}  // namespace lintra::kernels::cpu
