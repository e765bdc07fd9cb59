#include "core/shape.h"

#include "core/error.h"

namespace lintra {

int64_t numel_of(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Strides contiguous_strides(const Shape& shape) {
  Strides s(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    acc *= shape[i] > 0 ? shape[i] : 1;
  }
  return s;
}

std::string shape_str(const Shape& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

int64_t normalize_dim(int64_t dim, int64_t ndim, const char* op) {
  int64_t d = dim < 0 ? dim + ndim : dim;
  LINTRA_CHECK(d >= 0 && d < ndim, "{}: dim {} out of range for a tensor with {} dims (valid: {} … {})",
               op, dim, ndim, -ndim, ndim - 1);
  return d;
}

int64_t normalize_dim(int64_t dim, const Shape& shape, const char* op) {
  const int64_t ndim = int64_t(shape.size());
  int64_t d = dim < 0 ? dim + ndim : dim;
  LINTRA_CHECK(d >= 0 && d < ndim, "{}: dim {} out of range for a tensor of shape {} (valid: {} … {})", op, dim,
               shape_str(shape), -ndim, ndim - 1);
  return d;
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    LINTRA_CHECK(da == db || da == 1 || db == 1,
                 "{}: shapes {} and {} do not broadcast (dim {} has sizes {} and {})", op, shape_str(a),
                 shape_str(b), i, da, db);
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Strides broadcast_strides(const Shape& shape, const Strides& strides, const Shape& target) {
  size_t n = target.size();
  LINTRA_CHECK(shape.size() <= n, "broadcast: {} has more dims than {}", shape_str(shape), shape_str(target));
  Strides out(n, 0);
  size_t lead = n - shape.size();
  for (size_t i = 0; i < shape.size(); ++i) {
    LINTRA_CHECK(shape[i] == target[lead + i] || shape[i] == 1, "broadcast: {} does not broadcast to {}",
                 shape_str(shape), shape_str(target));
    out[lead + i] = shape[i] == 1 ? 0 : strides[i];
  }
  return out;
}

}  // namespace lintra
