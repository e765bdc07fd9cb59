// cpu/index_range.cpp — the range check of index values (core/ops.h index_range): how many values of
// an int64 tensor lie outside [low, high), and the first of them in row-major order. O(numel): a
// counting pass (blocks on the team, cpu/team_loop.h) and, only when one is outside, a serial search for the first.
#include <atomic>

#include "core/cpu/loops.h"
#include "core/kernels.h"

namespace lintra::kernels::cpu {

void index_range(const Tensor& index_in, int64_t low, int64_t high, Tensor& result) {
  const Tensor index = index_in.contiguous();
  const int64_t* p = index.data<int64_t>();
  const int64_t n = index.numel();
  std::atomic<int64_t> outside_sum{0};
  for_each_block(n, kBlockElements, n >= kParallelGrain, [&](int64_t i0, int64_t i1) {
    int64_t count = 0;
    for (int64_t i = i0; i < i1; ++i) count += (p[i] < low || p[i] >= high) ? 1 : 0;
    outside_sum.fetch_add(count, std::memory_order_relaxed);
  });
  const int64_t outside = outside_sum.load();
  int64_t first = -1, value = 0;
  for (int64_t i = 0; outside > 0 && i < n; ++i) {
    if (p[i] < low || p[i] >= high) {
      first = i;
      value = p[i];
      break;
    }
  }
  int64_t* r = result.data<int64_t>();
  r[0] = outside;
  r[1] = first;
  r[2] = value;
}

}  // namespace lintra::kernels::cpu
