// mixture_of_logistics.h — the discretized mixture of logistics (Salimans et al. 2017, PixelCNN++)
// as the paper's image experiments use it (PAPER.md §2.3; EXP image-generation/utils.py): one
// independent K-component mixture per sub-pixel, over `levels` = 256 intensity bins.
//
// Parameters per sub-pixel, last dim 3K: [K mixture logits | K means μ | K raw log-scales].
// Target pixel v ∈ {0 … 255} is mapped to x = v / 127.5 − 1 ∈ [−1, 1]; bins have half-width
// h = 1/(levels − 1). With log s = max(raw, −7), inv_s = e^(−log s), c = x − μ:
//
//   log p_k(x) = log σ(inv_s (c + h))                      if x < −0.999   (v = 0: mass of (−∞, bin])
//              = log(1 − σ(inv_s (c − h)))                  if x >  0.999   (v = 255: mass of [bin, ∞))
//              = log(σ(inv_s (c + h)) − σ(inv_s (c − h)))   if that difference > 1e-5
//              = m − log s − 2·softplus(m) − log((levels − 1)/2), m = inv_s·c   otherwise
//                (the logistic density at the bin centre times the bin width 2/(levels − 1))
//   NLL(x) = −logsumexp_k(log p_k(x) + log_softmax(logits)_k)        (nats)
//
// log σ(a) = a − softplus(a) and log(1 − σ(a)) = −softplus(a) keep the edge cases stable, as the
// paper's code. Branches are chosen with where(), so the unselected branch gets zero gradient (the
// paper's code multiplies by 0/1 masks instead: the same values and gradients wherever all
// branches are finite). bits/dim = NLL / ln 2.
//
// Sampling (sample_mol) follows the paper's sampler, whose scale is s = elu(raw) + 1.0001 — not the
// training loss's e^raw (the two agree up to 1e-4 for raw < 0; PAPER.md §2.3).
//
// Composite: every op is an autograd op (no fused kernel), so gradients come from autograd.
// Cost O(elements · K) time and memory (about 30 intermediates of that size are kept for backward).
#pragma once

#include <cstdint>

#include "autograd/functional.h"
#include "core/rng.h"

namespace lintra::nn {

struct MixtureOfLogisticsOptions {
  int64_t levels = 256;          // intensity bins; targets in [0, levels)
  double log_scale_min = -7.0;   // the training log-scale clamp
  double min_cdf_delta = 1e-5;   // below this the bin-centre density replaces the CDF difference
};

// Discretized mixture-of-logistics NLL in nats. params (…, 3K) float, target int64 (…) with values
// in [0, levels) and the shape of params without its last dim. Reduction: mean → scalar (the mean
// over all positions), sum → scalar, none → (…). Throws lintra::Error for a pixel out of range,
// mismatched shapes or a last dim that is not a positive multiple of 3.
Var mixture_of_logistics_nll(const Var& params, const Tensor& target, Reduction reduction = Reduction::mean,
                             const MixtureOfLogisticsOptions& options = {});

// One sample per row of params (…, 3K) → int64 (…) in [0, levels), as the paper's sample_mol: a
// component k by Gumbel-max over the logits, then x = μ_k + s_k·(log u − log(1 − u)) with
// s_k = elu(raw_k) + 1.0001 and u ~ U(0, 1), clamped to [−1, 1] and mapped to round((x + 1)·(levels − 1)/2).
// Draws exactly one (rows, K + 1) float64 uniform tensor from gen per call, so two callers with
// equal params and generator states get equal samples.
Tensor sample_mol(const Tensor& params, Generator& gen, int64_t levels = 256);

// Validates int64 pixel values: throws "<what>: pixel value 300 at index 17 is outside [0, 255]".
void check_pixel_values(const Tensor& pixels, int64_t levels, const char* what);

}  // namespace lintra::nn
