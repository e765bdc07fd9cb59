// cpu/loops.h — the strided iteration used by every CPU elementwise kernel.
//
// for_each_row(shape, {strides of operand 0, 1, …}, f) visits the elements of `shape` as rows:
// f(offsets, n, inner_strides) gets each operand's element offset of the row start, the row length
// and each operand's stride along the row. Dims are first coalesced (adjacent dims that every
// operand walks contiguously become one), so contiguous tensors become a single row that is split
// into blocks for the OpenMP threads; otherwise the rows are distributed. allow_parallel = false
// keeps the visit serial (kernels whose rows may write the same element, e.g. scatter_add).
//
// Work is handed out in blocks of about kBlockElements elements, one block at a time (team_for,
// cpu/team_loop.h), never split once per thread: when another process holds one of the cores, the
// thread the OS slows takes fewer blocks instead of keeping the others waiting at the end, and a thread
// left waiting for a descheduled one's last block swaps cores with it (issue 13: a step may get at
// most 1.5× slower when one of two cores is taken). Blocks depend only on the sizes, so no result
// depends on the schedule. for_each_block(n, block, parallel, f) is that loop for the
// kernels' own index ranges; block_items(cost) sizes a block of items of `cost` elements each.
#pragma once

#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "core/cpu/team_loop.h"
#include "core/shape.h"

namespace lintra::kernels::cpu {

constexpr int64_t kParallelGrain = 1 << 15;  // elements below which a loop stays serial
constexpr int64_t kBlockElements = 1 << 14;  // elements per block handed to a thread (64 KB of float32)

// Items per block when each item costs `cost` elements of work: about kBlockElements, at least 1.
inline int64_t block_items(int64_t cost) { return std::max<int64_t>(1, kBlockElements / std::max<int64_t>(1, cost)); }

// f(i0, i1) for the blocks [0, block), [block, 2·block), … of [0, n), handed to the OpenMP threads one
// at a time when `parallel` (and there are two blocks or more), else in order on this thread.
template <typename F> void for_each_block(int64_t n, int64_t block, bool parallel, F&& f) {
  const int64_t nblocks = (n + block - 1) / block;
  team_for(nblocks, parallel, [&](int64_t b) { f(b * block, std::min(n, (b + 1) * block)); });
}

template <size_t NOps, typename F>
void for_each_row(const Shape& shape_in, const std::array<Strides, NOps>& strides_in, F&& f,
                  bool allow_parallel = true) {
  // Coalesce: drop size-1 dims, merge dim i into i+1 when every operand has s[i] == s[i+1]·d[i+1].
  Shape shape;
  std::array<Strides, NOps> strides;
  for (size_t i = 0; i < shape_in.size(); ++i) {
    if (shape_in[i] == 1) continue;
    bool merge = !shape.empty();
    for (size_t k = 0; k < NOps && merge; ++k) merge = strides[k].back() == strides_in[k][i] * shape_in[i];
    if (merge) {
      shape.back() *= shape_in[i];
      for (size_t k = 0; k < NOps; ++k) strides[k].back() = strides_in[k][i];
    } else {
      shape.push_back(shape_in[i]);
      for (size_t k = 0; k < NOps; ++k) strides[k].push_back(strides_in[k][i]);
    }
  }
  if (shape.empty()) {
    shape.push_back(1);
    for (size_t k = 0; k < NOps; ++k) strides[k].push_back(1);
  }
  int64_t total = numel_of(shape);
  if (total == 0) return;
  const int64_t ndim = int64_t(shape.size());
  const int64_t inner = shape.back();
  std::array<int64_t, NOps> inner_strides;
  for (size_t k = 0; k < NOps; ++k) inner_strides[k] = strides[k].back();

  if (ndim == 1) {
    // One long row: split into blocks.
    const int64_t block = kBlockElements;
    const int64_t nblocks = (inner + block - 1) / block;
    team_for(nblocks, allow_parallel && total >= kParallelGrain, [&](int64_t b) {
      std::array<int64_t, NOps> off;
      for (size_t k = 0; k < NOps; ++k) off[k] = b * block * inner_strides[k];
      f(off, std::min(block, inner - b * block), inner_strides);
    });
    return;
  }
  const int64_t rows = total / inner;
  const int64_t rows_per_block = block_items(inner);
  const int64_t nblocks = (rows + rows_per_block - 1) / rows_per_block;
  team_for(nblocks, allow_parallel && total >= kParallelGrain, [&](int64_t b) {
    for (int64_t r = b * rows_per_block; r < std::min(rows, (b + 1) * rows_per_block); ++r) {
      std::array<int64_t, NOps> off{};
      int64_t rem = r;
      for (int64_t d = ndim - 2; d >= 0; --d) {
        int64_t idx = rem % shape[size_t(d)];
        rem /= shape[size_t(d)];
        for (size_t k = 0; k < NOps; ++k) off[k] += idx * strides[k][size_t(d)];
      }
      f(off, inner, inner_strides);
    }
  });
}

// The strides of t read as `target` (broadcast), as an array entry for for_each_row.
inline Strides bstrides(const Shape& shape, const Strides& strides, const Shape& target) {
  return broadcast_strides(shape, strides, target);
}

}  // namespace lintra::kernels::cpu
