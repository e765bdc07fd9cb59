// cuda/sort.cu — the segmented stable sort of cuda/sort.h over CUB.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cub/device/device_segmented_sort.cuh>
#include <type_traits>

#include "core/cuda/launch.cuh"
#include "core/cuda/runtime.h"
#include "core/cuda/sort.h"

namespace lintra::cuda {

namespace {

void check(cudaError_t err, int device, const char* what) {
  if (err != cudaSuccess) detail::fail(what, device, cudaGetErrorString(err), __FILE__, __LINE__);
}

template <class F> void dispatch(int device, Elem type, F&& f) {
  switch (type) {
    case Elem::f32: return f.template operator()<float>();
    case Elem::f64: return f.template operator()<double>();
    case Elem::i64: return f.template operator()<int64_t>();
    case Elem::u8: return f.template operator()<uint8_t>();
  }
  detail::fail("sort", device, "unknown element type", __FILE__, __LINE__);
}

// The key CUB sorts for an element type: floats as unsigned integers in the same order (Order below),
// since CUB's merge path for short segments compares float keys with <, which NaN breaks; integers as
// they are.
template <class T> struct SortKey { using type = T; };
template <> struct SortKey<float> { using type = uint32_t; };
template <> struct SortKey<double> { using type = uint64_t; };

// A float's key: unsigned, ordered as the CPU orders the floats — NaN above +∞ (every NaN, whatever its
// sign or payload, the same key: stable among themselves), −0 equal to +0, negative values below positive
// ones — by flipping every bit of a negative and the sign bit of a positive.
template <class T, class U> __device__ U order_key(T k) {
  if (k != k) return ~U(0);
  if (k == T(0)) k = T(0);
  U u;
  memcpy(&u, &k, sizeof u);
  const U sign = U(1) << (sizeof(U) * 8 - 1);
  return (u & sign) ? ~u : (u | sign);
}

// work = the keys CUB sorts (SortKey); index = the position in the line; offsets = line starts.
template <class T, class K> __global__ void prepare_kernel(const T* keys, int64_t lines, int64_t length, K* work,
                                                           int64_t* index, int64_t* offsets) {
  const int64_t n = lines * length, step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    if constexpr (std::is_floating_point_v<T>) {
      work[i] = order_key<T, K>(keys[i]);
    } else {
      work[i] = keys[i];
    }
    index[i] = i % length;
  }
  for (int64_t l = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; l <= lines; l += step) offsets[l] = l * length;
}

// values[i] = the input key the sort put at i (its line's element index[i]): the input's exact bits,
// −0 and NaN payloads included, as the CPU's sort writes them.
template <class T> __global__ void gather_kernel(const T* keys, int64_t lines, int64_t length, const int64_t* index,
                                                 T* values) {
  const int64_t n = lines * length, step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    values[i] = keys[(i / length) * length + index[i]];
}

template <class T> cudaError_t cub_sort(void* temp, size_t& bytes, const T* in, T* out, const int64_t* idx_in,
                                        int64_t* idx_out, int64_t n, int64_t lines, const int64_t* offsets,
                                        bool descending, cudaStream_t s) {
  if (descending)
    return cub::DeviceSegmentedSort::StableSortPairsDescending(temp, bytes, in, out, idx_in, idx_out, n, lines, offsets,
                                                               offsets + 1, s);
  return cub::DeviceSegmentedSort::StableSortPairs(temp, bytes, in, out, idx_in, idx_out, n, lines, offsets, offsets + 1,
                                                   s);
}

}  // namespace

size_t sort_temp_bytes(int device, Elem type, int64_t lines, int64_t length, bool descending) {
  size_t bytes = 0;
  dispatch(device, type, [&]<class T>() {
    using K = typename SortKey<T>::type;
    check(cub_sort<K>(nullptr, bytes, nullptr, nullptr, nullptr, nullptr, lines * length, lines, nullptr, descending,
                      stream_of(device)),
          device, "sort (temporary storage size)");
  });
  return bytes;
}

void sort(int device, Elem type, const void* keys, int64_t lines, int64_t length, bool descending, void* values,
          int64_t* indices, void* keys_work, int64_t* index_work, int64_t* offsets, void* temp, size_t temp_bytes) {
  if (lines * length == 0) return;
  const cudaStream_t s = stream_of(device);
  dispatch(device, type, [&]<class T>() {
    // Float keys are sorted as their unsigned keys (same width as T: keys_work and values hold them), then
    // values gathered from the input; integer keys are sorted straight into values.
    using K = typename SortKey<T>::type;
    static_assert(sizeof(K) == sizeof(T));
    const T* in = static_cast<const T*>(keys);
    prepare_kernel<T, K><<<grid_for(lines * length), kThreads, 0, s>>>(in, lines, length, static_cast<K*>(keys_work),
                                                                       index_work, offsets);
    check(cudaGetLastError(), device, "sort (prepare)");
    check(cub_sort<K>(temp, temp_bytes, static_cast<const K*>(keys_work), static_cast<K*>(values), index_work, indices,
                      lines * length, lines, offsets, descending, s),
          device, "sort");
    if constexpr (std::is_floating_point_v<T>) {
      gather_kernel<T><<<grid_for(lines * length), kThreads, 0, s>>>(in, lines, length, indices, static_cast<T*>(values));
      check(cudaGetLastError(), device, "sort (gather)");
    }
  });
}

}  // namespace lintra::cuda
