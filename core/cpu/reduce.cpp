// cpu/reduce.cpp — sum/max/min and arg-max/min over one dim.
//
// out has x's shape with `dim` set to 1. Two loop shapes: when x is contiguous along dim (row
// reductions) each output element reduces one contiguous run; otherwise each output row accumulates
// x's slices r = 0 … R−1 elementwise, which keeps the inner loop contiguous for column reductions
// (e.g. a bias gradient summed over the batch). float32 runs and rows of at least kSimdRun elements
// take the Highway path (cpu/reduce_simd.h, dispatched per CPU); the rest, an OpenMP simd sum or the
// scalar combine.
#include <limits>
#include <type_traits>

#include "core/cpu/loops.h"
#include "core/cpu/reduce_simd.h"
#include "core/kernels.h"

namespace lintra::kernels::cpu {

namespace {

template <typename T> T reduce_init(ReduceOp op) {
  if (op == ReduceOp::sum) return T(0);
  if constexpr (std::numeric_limits<T>::has_infinity) {
    return op == ReduceOp::max ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  } else {
    return op == ReduceOp::max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  }
}

template <typename T> inline T combine(ReduceOp op, T acc, T v) {
  switch (op) {
    case ReduceOp::sum: return acc + v;
    case ReduceOp::max: return (v > acc || v != v) ? v : acc;
    case ReduceOp::min: return (v < acc || v != v) ? v : acc;
  }
  return acc;
}

// Below this many elements a dispatched vector call costs more than the scalar loop saves.
constexpr int64_t kSimdRun = 16;

template <typename T>
T reduce_run(ReduceOp op, const T* p, int64_t n) {
  if constexpr (std::is_same_v<T, float>) {
    if (n >= kSimdRun) return reduce_run_simd_f32(op, p, n);
  }
  T acc = reduce_init<T>(op);
  if (op == ReduceOp::sum) {
#pragma omp simd reduction(+ : acc)
    for (int64_t r = 0; r < n; ++r) acc += p[r];
    return acc;
  }
  for (int64_t r = 0; r < n; ++r) acc = combine(op, acc, p[r]);
  return acc;
}

template <typename T>
void reduce_typed(ReduceOp op, const Tensor& x, int64_t dim, Tensor& out) {
  const T* xp = static_cast<const T*>(x.raw_data());
  T* op_ = static_cast<T*>(out.raw_data());
  const int64_t R = x.shape()[size_t(dim)];
  const int64_t rs = x.strides()[size_t(dim)];
  Strides xs = x.strides();
  xs[size_t(dim)] = 0;
  const T init = reduce_init<T>(op);
  if (rs == 1 || R == 1) {
    for_each_row<2>(out.shape(), {xs, out.strides()},
                    [&](const std::array<int64_t, 2>& off, int64_t n, const std::array<int64_t, 2>& st) {
                      for (int64_t i = 0; i < n; ++i)
                        op_[off[1] + i * st[1]] = R == 0 ? init : reduce_run<T>(op, xp + off[0] + i * st[0], R);
                    });
    return;
  }
  for_each_row<2>(out.shape(), {xs, out.strides()},
                  [&](const std::array<int64_t, 2>& off, int64_t n, const std::array<int64_t, 2>& st) {
                    T* o = op_ + off[1];
                    for (int64_t i = 0; i < n; ++i) o[i * st[1]] = init;
                    for (int64_t r = 0; r < R; ++r) {
                      const T* p = xp + off[0] + r * rs;
                      if constexpr (std::is_same_v<T, float>) {
                        if (st[0] == 1 && st[1] == 1 && n >= kSimdRun) {
                          accumulate_row_simd_f32(op, p, o, n);
                          continue;
                        }
                      }
                      if (st[0] == 1 && st[1] == 1 && op == ReduceOp::sum) {
#pragma omp simd
                        for (int64_t i = 0; i < n; ++i) o[i] += p[i];
                      } else {
                        for (int64_t i = 0; i < n; ++i) o[i * st[1]] = combine(op, o[i * st[1]], p[i * st[0]]);
                      }
                    }
                  });
}

template <typename T>
void arg_reduce_typed(bool is_max, const Tensor& x, int64_t dim, Tensor& values, Tensor& indices) {
  const T* xp = static_cast<const T*>(x.raw_data());
  T* vp = static_cast<T*>(values.raw_data());
  int64_t* ip = static_cast<int64_t*>(indices.raw_data());
  const int64_t R = x.shape()[size_t(dim)];
  const int64_t rs = x.strides()[size_t(dim)];
  Strides xs = x.strides();
  xs[size_t(dim)] = 0;
  for_each_row<2>(values.shape(), {xs, values.strides()},
                  [&](const std::array<int64_t, 2>& off, int64_t n, const std::array<int64_t, 2>& st) {
                    for (int64_t i = 0; i < n; ++i) {
                      const T* p = xp + off[0] + i * st[0];
                      T best = p[0];
                      int64_t best_r = 0;
                      for (int64_t r = 1; r < R && best == best; ++r) {
                        T v = p[r * rs];
                        if (is_max ? (v > best || v != v) : (v < best || v != v)) {
                          best = v;
                          best_r = r;
                        }
                      }
                      vp[off[1] + i * st[1]] = best;
                      ip[off[1] + i * st[1]] = best_r;
                    }
                  });
}

}  // namespace

void reduce(ReduceOp op, const Tensor& x, int64_t dim, Tensor& out) {
  dispatch_all(x.dtype(), "reduce", [&]<typename scalar_t>() { reduce_typed<scalar_t>(op, x, dim, out); });
}

void arg_reduce(bool is_max, const Tensor& x, int64_t dim, Tensor& values, Tensor& indices) {
  dispatch_all(x.dtype(), "argmax", [&]<typename scalar_t>() { arg_reduce_typed<scalar_t>(is_max, x, dim, values, indices); });
}

}  // namespace lintra::kernels::cpu
