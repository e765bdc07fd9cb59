// cpu/index.cpp — index_select, gather, scatter_add, index_add.
// Indices are int64 and already range-checked by the caller (core/ops.cpp), since a kernel must
// not throw from inside an OpenMP region.
#include <cstring>

#include "core/cpu/loops.h"
#include "core/kernels.h"

namespace lintra::kernels::cpu {

namespace {

// (outer, size of dim, inner) of a contiguous shape.
void split_dims(const Shape& s, int64_t dim, int64_t& outer, int64_t& n, int64_t& inner) {
  outer = 1;
  inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= s[size_t(d)];
  for (size_t d = size_t(dim) + 1; d < s.size(); ++d) inner *= s[d];
  n = s[size_t(dim)];
}

}  // namespace

void index_select(const Tensor& x_in, int64_t dim, const Tensor& index_in, Tensor& out) {
  Tensor x = x_in.contiguous();
  Tensor index = index_in.contiguous();
  int64_t outer, n, inner;
  split_dims(x.shape(), dim, outer, n, inner);
  const int64_t L = index.numel();
  const int64_t* idx = index.data<int64_t>();
  const size_t esz = dtype_size(x.dtype());
  const char* xp = static_cast<const char*>(x.raw_data());
  char* op = static_cast<char*>(out.raw_data());
  for_each_block(outer * L, block_items(inner), outer * L * inner >= kParallelGrain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {  // r = o·L + j
      const int64_t o = r / L, j = r % L;
      std::memcpy(op + size_t(r * inner) * esz, xp + size_t((o * n + idx[j]) * inner) * esz, size_t(inner) * esz);
    }
  });
}

void gather(const Tensor& x, int64_t dim, const Tensor& index, Tensor& out) {
  Strides xs = x.strides();
  const int64_t dstride = xs[size_t(dim)];
  xs[size_t(dim)] = 0;
  Strides is = index.strides();
  const int64_t* ip = index.data<int64_t>();
  dispatch_all(x.dtype(), "gather", [&]<typename scalar_t>() {
    using T = scalar_t;
    const T* xp = static_cast<const T*>(x.raw_data());
    T* op = static_cast<T*>(out.raw_data());
    for_each_row<3>(out.shape(), {xs, is, out.strides()},
                    [&](const std::array<int64_t, 3>& off, int64_t n, const std::array<int64_t, 3>& st) {
                      for (int64_t i = 0; i < n; ++i)
                        op[off[2] + i * st[2]] = xp[off[0] + i * st[0] + ip[off[1] + i * st[1]] * dstride];
                    });
  });
}

void scatter_add(Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) {
  Strides os = out.strides();
  const int64_t dstride = os[size_t(dim)];
  os[size_t(dim)] = 0;
  const int64_t* ip = index.data<int64_t>();
  dispatch_all(out.dtype(), "scatter_add", [&]<typename scalar_t>() {
    using T = scalar_t;
    const T* sp = static_cast<const T*>(src.raw_data());
    T* op = static_cast<T*>(out.raw_data());
    for_each_row<3>(
        index.shape(), {os, index.strides(), broadcast_strides(src.shape(), src.strides(), index.shape())},
        [&](const std::array<int64_t, 3>& off, int64_t n, const std::array<int64_t, 3>& st) {
          for (int64_t i = 0; i < n; ++i) op[off[0] + i * st[0] + ip[off[1] + i * st[1]] * dstride] += sp[off[2] + i * st[2]];
        },
        /*allow_parallel=*/false);
  });
}

void index_add(Tensor& out, int64_t dim, const Tensor& index_in, const Tensor& src_in) {
  Tensor index = index_in.contiguous();
  Tensor src = src_in.contiguous();
  int64_t outer, n, inner;
  split_dims(out.shape(), dim, outer, n, inner);
  const int64_t L = index.numel();
  const int64_t* idx = index.data<int64_t>();
  dispatch_all(out.dtype(), "index_add", [&]<typename scalar_t>() {
    using T = scalar_t;
    const T* sp = src.data<T>();
    T* op = out.data<T>();
    for_each_block(outer, block_items(L * inner), outer > 1 && outer * L * inner >= kParallelGrain,
                   [&](int64_t o0, int64_t o1) {
                     for (int64_t o = o0; o < o1; ++o) {
                       for (int64_t j = 0; j < L; ++j) {
                         T* dst = op + (o * n + idx[j]) * inner;
                         const T* s = sp + (o * L + j) * inner;
#pragma omp simd
                         for (int64_t i = 0; i < inner; ++i) dst[i] += s[i];
                       }
                     }
                   });
  });
}

}  // namespace lintra::kernels::cpu
