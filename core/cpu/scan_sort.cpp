// cpu/scan_sort.cpp — cumulative sums and stable sorts along a dim.
//   cumsum:  out[…, r, …] = Σ_{r' ≤ r} x[…, r', …]   (reverse: Σ_{r' ≥ r}); O(numel)
//   sort:    per line along dim, a stable sort (std::stable_sort, O(n log n)); NaN sorts as the
//            largest value; indices give each output's position in the input line.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "core/cpu/loops.h"
#include "core/kernels.h"

namespace lintra::kernels::cpu {

void cumsum(const Tensor& x_in, int64_t dim, bool reverse, Tensor& out) {
  Tensor x = x_in.contiguous();
  int64_t outer = 1, inner = 1;
  const int64_t R = x.shape()[size_t(dim)];
  for (int64_t d = 0; d < dim; ++d) outer *= x.shape()[size_t(d)];
  for (size_t d = size_t(dim) + 1; d < x.shape().size(); ++d) inner *= x.shape()[d];
  dispatch_all(x.dtype(), "cumsum", [&]<typename scalar_t>() {
    using T = scalar_t;
    const T* xp = x.data<T>();
    T* op = out.data<T>();
    for_each_block(outer, block_items(R * inner), x.numel() >= kParallelGrain, [&](int64_t o0, int64_t o1) {
     for (int64_t o = o0; o < o1; ++o) {
      for (int64_t k = 0; k < R; ++k) {
        int64_t r = reverse ? R - 1 - k : k;
        const T* src = xp + (o * R + r) * inner;
        T* dst = op + (o * R + r) * inner;
        if (k == 0) {
          std::copy(src, src + inner, dst);
        } else {
          const T* prev = op + (o * R + (reverse ? r + 1 : r - 1)) * inner;
#pragma omp simd
          for (int64_t i = 0; i < inner; ++i) dst[i] = prev[i] + src[i];
        }
      }
     }
    });
  });
}

void sort(const Tensor& x, int64_t dim, bool descending, Tensor& values, Tensor& indices) {
  // Work on lines: move dim last and make contiguous.
  const int64_t nd = x.dim();
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < nd; ++d)
    if (d != dim) perm.push_back(d);
  perm.push_back(dim);
  Tensor lines = x.permute(perm).contiguous();
  const int64_t n = x.shape()[size_t(dim)];
  const int64_t nlines = n == 0 ? 0 : lines.numel() / n;
  Tensor vals_lines = Tensor::empty(lines.shape(), x.dtype());
  Tensor idx_lines = Tensor::empty(lines.shape(), DType::i64);
  dispatch_all(x.dtype(), "sort", [&]<typename scalar_t>() {
    using T = scalar_t;
    const T* lp = lines.data<T>();
    T* vp = vals_lines.data<T>();
    int64_t* ip = idx_lines.data<int64_t>();
    for_each_block(nlines, block_items(n), lines.numel() >= kParallelGrain, [&](int64_t l0, int64_t l1) {
     for (int64_t l = l0; l < l1; ++l) {
      const T* v = lp + l * n;
      int64_t* order = ip + l * n;
      std::iota(order, order + n, int64_t(0));
      auto key_less = [](T a, T b) {
        if constexpr (std::is_floating_point_v<T>) {
          if (std::isnan(a)) return false;
          if (std::isnan(b)) return true;
        }
        return a < b;
      };
      if (descending) {
        std::stable_sort(order, order + n, [&](int64_t a, int64_t b) { return key_less(v[b], v[a]); });
      } else {
        std::stable_sort(order, order + n, [&](int64_t a, int64_t b) { return key_less(v[a], v[b]); });
      }
      for (int64_t i = 0; i < n; ++i) vp[l * n + i] = v[order[i]];
     }
    });
  });
  // Inverse permutation back to x's layout.
  std::vector<int64_t> inv(static_cast<size_t>(nd));
  for (int64_t d = 0; d < nd; ++d) inv[size_t(perm[size_t(d)])] = d;
  Tensor vv = vals_lines.permute(inv), iv = idx_lines.permute(inv);
  table.copy(vv, values);
  table.copy(iv, indices);
}

}  // namespace lintra::kernels::cpu
