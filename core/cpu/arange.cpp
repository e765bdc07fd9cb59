// cpu/arange.cpp — out[i] = start + i·step, computed in float64 and cast to out's dtype (exact for
// integers below 2^53). O(n), OpenMP over blocks.
#include "core/cpu/loops.h"
#include "core/kernels.h"

namespace lintra::kernels::cpu {

void arange(Tensor& out, double start, double step) {
  const int64_t n = out.numel();
  dispatch_all(out.dtype(), "arange", [&]<typename T>() {
    T* p = out.data<T>();
    for_each_block(n, kBlockElements, n >= kParallelGrain, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) p[i] = T(start + double(i) * step);
    });
  });
}

}  // namespace lintra::kernels::cpu
