// cuda/sort.cu — the segmented stable sort of cuda/sort.h over CUB.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
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

// work = keys with every NaN made +NaN; index = the position in the line; offsets = line starts.
template <class T> __global__ void prepare_kernel(const T* keys, int64_t lines, int64_t length, T* work, int64_t* index,
                                                  int64_t* offsets) {
  const int64_t n = lines * length, step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    T k = keys[i];
    if constexpr (std::is_floating_point_v<T>) {
      if (k != k) k = T(NAN);
    }
    work[i] = k;
    index[i] = i % length;
  }
  for (int64_t l = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; l <= lines; l += step) offsets[l] = l * length;
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
    check(cub_sort<T>(nullptr, bytes, nullptr, nullptr, nullptr, nullptr, lines * length, lines, nullptr, descending,
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
    prepare_kernel<T><<<grid_for(lines * length), kThreads, 0, s>>>(static_cast<const T*>(keys), lines, length,
                                                                    static_cast<T*>(keys_work), index_work, offsets);
    check(cudaGetLastError(), device, "sort (prepare)");
    check(cub_sort<T>(temp, temp_bytes, static_cast<const T*>(keys_work), static_cast<T*>(values), index_work, indices,
                      lines * length, lines, offsets, descending, s),
          device, "sort");
  });
}

}  // namespace lintra::cuda
