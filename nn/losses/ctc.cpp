// ctc.cpp — CTC loss (the forward–backward is the kernel ctc_loss, core/cpu/ctc.cpp; formulas in ctc.h):
// its checks and error messages, the node, greedy decoding (on the host, after a copy) and edit distance.
#include "nn/losses/ctc.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"

namespace lintra::nn {

namespace {

// A (B) int64 tensor's values on the host (an explicit copy), after checking its shape.
std::vector<int64_t> checked_vector(const Tensor& t, int64_t B, const char* what) {
  LINTRA_CHECK(t.defined() && t.dtype() == DType::i64 && t.dim() == 1 && t.size(0) == B,
               "ctc: {} must be int64 ({}), got {}", what, B, t.defined() ? t.describe() : "undefined");
  return t.cpu().to_vector<int64_t>();
}

void check_lengths(const Tensor& t, int64_t B, int64_t low, int64_t high, const char* what, const char* name) {
  LINTRA_CHECK(t.defined() && t.dtype() == DType::i64 && t.dim() == 1 && t.size(0) == B,
               "ctc: {} must be int64 ({}), got {}", name, B, t.defined() ? t.describe() : "undefined");
  const ops::IndexRange r = ops::index_range(t, low, high);
  LINTRA_CHECK(r.outside == 0, "ctc: sequence {} has {} {}; it must be in [{}, {}]", r.position, what, r.value, low,
               high - 1);
}

// Throws for the first sequence whose status (core/kernels.h ctc_loss) is not 0.
void check_status(const ops::CtcLoss& r, int64_t C, const Tensor& input_lengths, const Tensor& target_lengths) {
  const std::vector<int64_t> st = r.status.cpu().to_vector<int64_t>();
  for (size_t b = 0; b < st.size() / 3; ++b) {
    const int64_t code = st[3 * b], a = st[3 * b + 1], v = st[3 * b + 2];
    if (code == 0) continue;
    LINTRA_CHECK(code != 1, "ctc: sequence {} target {} is {}; labels must be in [1, {}] (0 is the blank)", b, a, v,
                 C - 1);
    if (code == 2) {
      const int64_t Tb = input_lengths.cpu().to_vector<int64_t>()[b];
      const int64_t Sb = target_lengths.cpu().to_vector<int64_t>()[b];
      LINTRA_FAIL("ctc: sequence {} cannot be aligned: {} frames for {} labels with {} repeats (needs at least {} "
                  "frames); shorten the target or subsample less",
                  b, Tb, Sb, a, Sb + a);
    }
    LINTRA_FAIL("ctc: sequence {} has a non-finite loss {} (log_probs contain -inf or nan?)", b,
                r.nll.cpu().to(DType::f64).to_vector<double>()[b]);
  }
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
  check_lengths(input_lengths, B, 1, T + 1, "input length", "input_lengths");
  check_lengths(target_lengths, B, 0, targets.size(1) + 1, "target length", "target_lengths");
  const ops::CtcLoss r = ops::ctc_loss(log_probs.data(), targets, input_lengths, target_lengths);
  check_status(r, C, input_lengths, target_lengths);
  return make_result(r.nll, "ctc_nll", {log_probs}, {r.grad},
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
  const std::vector<int64_t> best = ops::argmax(log_probs, -1).cpu().to_vector<int64_t>();  // (B, T), to the host
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
