// feature_maps.h — feature maps φ of kernelised (linear) attention, applied elementwise.
//
//   elu_feature_map: φ(x) = elu(x) + 1  (PAPER.md §3 eq 7): x + 1 for x > 0, eˣ otherwise.
//   Positive everywhere, so the normaliser φ(Q_i)·Σφ(K_j) stays positive; C = E features.
//
// The heads attention gets are (B, N, H, E) projections viewed as (B, H, N, E): rows of E elements
// scattered with a stride of H·E, which the elementwise kernels take row by row. An elementwise map
// commutes with the permutation, so φ is computed on the projection's own dense layout (one flat
// pass on the dispatched SIMD kernels) and the result is handed on as the same (B, H, N, E) view.
// φ is one op (op::EluFeature: the bits of elu then + 1, in one pass, its backward reading φ alone).
#pragma once

#include "autograd/functional.h"

namespace lintra::nn {

inline Var elu_feature_map(const Var& x) {
  if (x.dim() == 4 && !x.data().is_contiguous()) {
    const Var dense = permute(x, {0, 2, 1, 3});  // (B, N, H, E)
    if (dense.data().is_contiguous()) return permute(elu_feature(dense), {0, 2, 1, 3});
  }
  return elu_feature(x);
}

}  // namespace lintra::nn
