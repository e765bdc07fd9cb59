// ctc.h — Connectionist Temporal Classification (Graves et al. 2006) for the WSJ experiment
// (PAPER.md §2.3 "Speech"): loss, greedy decoding and the edit distance behind the phone error rate.
//
// Labels: class 0 is the blank; targets hold labels 1 … C−1. For a target l of length S the extended
// sequence is l' = (0, l_1, 0, l_2, …, 0, l_S, 0) of length L = 2S + 1. With y_t(k) = exp(log_probs[t, k])
// (log space throughout, log-sum-exp for sums):
//   α_0(0) = ln y_0(0),  α_0(1) = ln y_0(l'_1),  α_0(s ≥ 2) = −∞
//   α_t(s) = ln y_t(l'_s) + lse(α_{t−1}(s), α_{t−1}(s−1), α_{t−1}(s−2) if l'_s ≠ 0 and l'_s ≠ l'_{s−2})
//   ln p(l | x) = lse(α_{T−1}(L−1), α_{T−1}(L−2))
// β_t(s) is the log probability of frames t+1 … T−1 given state s at frame t (it excludes frame t):
//   β_{T−1}(L−1) = β_{T−1}(L−2) = 0,  β_t(s) = lse over successors s' ∈ {s, s+1, s+2 (same rule)} of
//   ln y_{t+1}(l'_{s'}) + β_{t+1}(s').
// p is multilinear in the y's (one factor per frame), so for the inputs z = log_probs
//   ∂(−ln p)/∂z_t(k) = −Σ_{s : l'_s = k} exp(α_t(s) + β_t(s) − ln p)
// exactly, whether or not z is normalised (the log_softmax before it gets its gradient from autograd).
// The forward computes this gradient (as PyTorch's ctc_loss does) and the node's backward scales it.
//
// Batching: log_probs (B, T, C), sequence b uses frames [0, T_b) and targets[b, 0 : S_b); frames at or
// beyond T_b get zero gradient. A sequence needs T_b ≥ S_b + (number of repeated neighbours in its
// target), else its probability is 0 and ctc_nll throws naming the sequence; T_b = 0 throws too.
// The recursions are the kernel ctc_loss (core/cpu/ctc.cpp), in float64: O(B·T·S) time, O(T·S) memory
// per sequence.
#pragma once

#include <cstdint>
#include <vector>

#include "autograd/functional.h"

namespace lintra::nn {

// Per-sequence negative log-likelihood −ln p(target_b | x_b): log_probs (B, T, C) float →
// (B) of the same dtype. targets int64 (B, S) padded (values past S_b are ignored), input_lengths and
// target_lengths int64 (B).
Var ctc_nll(const Var& log_probs, const Tensor& targets, const Tensor& input_lengths, const Tensor& target_lengths);

// Reduced CTC loss. Reduction::mean is PyTorch's default: each sequence's NLL divided by
// max(S_b, 1), then averaged over the batch. sum: Σ_b NLL_b; none: the (B) NLLs.
Var ctc_loss(const Var& log_probs, const Tensor& targets, const Tensor& input_lengths, const Tensor& target_lengths,
             Reduction reduction = Reduction::mean);

// Best path decoding: per frame argmax over classes within [0, T_b), collapse repeats, drop blanks.
// log_probs (B, T, C) (a Tensor: no gradient), lengths int64 (B) or undefined (all T).
std::vector<std::vector<int64_t>> ctc_greedy_decode(const Tensor& log_probs, const Tensor& lengths = Tensor());

// Levenshtein distance (unit-cost insertions, deletions, substitutions). The phone error rate is
// Σ edit_distance(hyp, ref) / Σ |ref| over a data set.
int64_t edit_distance(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

}  // namespace lintra::nn
