// feature_maps.h — feature maps φ of kernelised (linear) attention, applied elementwise.
//
//   elu_feature_map: φ(x) = elu(x) + 1  (PAPER.md §3 eq 7): x + 1 for x > 0, eˣ otherwise.
//   Positive everywhere, so the normaliser φ(Q_i)·Σφ(K_j) stays positive; C = E features.
#pragma once

#include "autograd/functional.h"

namespace lintra::nn {

inline Var elu_feature_map(const Var& x) { return add(elu(x), 1.0); }

}  // namespace lintra::nn
