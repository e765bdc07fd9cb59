// reference/range.cpp — arange and index_range as plain loops (reference.h).
#include "core/reference/reference.h"

namespace lintra::reference {

Tensor arange(int64_t n, double start, double step) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = start + double(i) * step;
  return Tensor::from_vector(v, {n});
}

Tensor index_range(const Tensor& index, int64_t low, int64_t high) {
  const std::vector<int64_t> v = index.to_vector<int64_t>();
  int64_t outside = 0, first = -1, value = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] >= low && v[i] < high) continue;
    if (outside++ == 0) first = int64_t(i), value = v[i];
  }
  return Tensor::from_vector(std::vector<int64_t>{outside, first, value}, {3});
}

}  // namespace lintra::reference
