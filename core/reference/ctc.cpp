// reference/ctc.cpp — CTC by brute force (reference.h): every path π ∈ [0, C)^T_b, collapsed (repeats
// merged, blanks dropped), is compared with the target; p = Σ_{π → target} Π_t exp(z_t(π_t)) and the
// gradient of −ln p with respect to z_t(k) is −(1/p)·Σ_{π → target, π_t = k} Π_t exp(z_t(π_t)).
// C^T_b paths per sequence: for tests with T_b·log2(C) of about 16 at most.
#include <cmath>

#include "core/reference/reference.h"

namespace lintra::reference {

namespace {

bool collapses_to(const std::vector<int64_t>& path, const std::vector<int64_t>& target) {
  std::vector<int64_t> out;
  int64_t prev = -1;
  for (int64_t k : path) {
    if (k != prev && k != 0) out.push_back(k);
    prev = k;
  }
  return out == target;
}

// Advances a path like an odometer over [0, C); false after the last.
bool next_path(std::vector<int64_t>& path, int64_t C) {
  for (size_t t = path.size(); t-- > 0;) {
    if (++path[t] < C) return true;
    path[t] = 0;
  }
  return false;
}

}  // namespace

CtcResult ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                   const Tensor& target_lengths) {
  const int64_t B = log_probs.size(0), T = log_probs.size(1), C = log_probs.size(2), S = targets.size(1);
  const std::vector<double> z = log_probs.to_vector<double>();
  const std::vector<int64_t> tg = targets.to_vector<int64_t>(), il = input_lengths.to_vector<int64_t>(),
                             tl = target_lengths.to_vector<int64_t>();
  std::vector<double> nll(static_cast<size_t>(B)), grad(size_t(B * T * C), 0.0);
  for (int64_t b = 0; b < B; ++b) {
    const std::vector<int64_t> target(tg.begin() + b * S, tg.begin() + b * S + tl[size_t(b)]);
    std::vector<int64_t> path(size_t(il[size_t(b)]), 0);
    double p = 0;
    do {
      if (!collapses_to(path, target)) continue;
      double prob = 1;
      for (size_t t = 0; t < path.size(); ++t) prob *= std::exp(z[size_t((b * T + int64_t(t)) * C + path[t])]);
      p += prob;
      for (size_t t = 0; t < path.size(); ++t) grad[size_t((b * T + int64_t(t)) * C + path[t])] -= prob;
    } while (next_path(path, C));
    nll[size_t(b)] = -std::log(p);
    for (int64_t i = 0; i < T * C; ++i) grad[size_t(b * T * C + i)] /= p;
  }
  return {Tensor::from_vector(nll, {B}), Tensor::from_vector(grad, {B, T, C})};
}

}  // namespace lintra::reference
