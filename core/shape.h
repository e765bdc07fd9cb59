// shape.h — shapes, strides and the broadcasting rules.
//
// Shapes and strides are counted in elements. A tensor of shape (d0, …, d{n-1}) and strides
// (s0, …, s{n-1}) stores element (i0, …, i{n-1}) at offset + Σ ik·sk. Contiguous (row-major) strides
// are s{n-1} = 1, sk = s{k+1}·d{k+1}. A stride of 0 repeats an element (expand/broadcast).
// Broadcasting follows NumPy: align trailing dims; each pair must be equal or one of them 1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lintra {

using Shape = std::vector<int64_t>;
using Strides = std::vector<int64_t>;

int64_t numel_of(const Shape& shape);
Strides contiguous_strides(const Shape& shape);
std::string shape_str(const Shape& shape);  // "[2, 3]"

// Wraps a possibly negative dim into [0, ndim); throws naming `op` when out of range.
int64_t normalize_dim(int64_t dim, int64_t ndim, const char* op);
// Same for a dim of a tensor of `shape`; the error names the shape too.
int64_t normalize_dim(int64_t dim, const Shape& shape, const char* op);

// The broadcast shape of a and b; throws naming `op` and both shapes when they do not broadcast.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);

// Strides that read a tensor of (shape, strides) as if it had shape `target` (stride 0 on
// broadcast dims). `shape` must broadcast to `target`.
Strides broadcast_strides(const Shape& shape, const Strides& strides, const Shape& target);

}  // namespace lintra
