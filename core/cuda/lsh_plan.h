// cuda/lsh_plan.h — one hash round of reformer attention on the GPU (kernels.h lsh_plan; the layout and
// the CPU's loops are core/cpu/lsh_plan.cpp, the math nn/attention/reformer_attention.cpp). Declared
// without Tensor or fmt so that nvcc compiles the definitions (cuda/lsh_plan.cu) and g++ the caller.
//
// Two launches: (1) a block per (b, h) whose first thread runs the CPU's stable counting sort of the N
// positions by bucket (padded positions last) into perm (scratch: BH·(Np + n_keys + 1) int64) and
// writes query_rows and scatter — O(N + n_keys) serial per (b, h), the (b, h) in parallel; (2) a block
// per (b, h, chunk) writing that chunk's window rows and its C × W additive mask and row_ok, a thread
// per entry. O(BH·(N + nc·C·W)).
#pragma once

#include <cstdint>

#include "core/cuda/elementwise.h"  // Elem

namespace lintra::cuda {

struct LshPlanShape {
  int64_t H, N, BH, nc, C, W, Np, n_keys;  // n_keys: the largest bucket + 2 (a last key for padded positions)
};

// buckets (BH, N), lengths (B) int64 on the device; outputs as kernels.h's lsh_plan; `type` is the
// additive mask's and row_ok's (f32 or f64).
void lsh_plan(int device, Elem type, const LshPlanShape& g, const int64_t* buckets, const int64_t* lengths, bool causal,
              bool masked, double self_logit, int64_t* query_rows, int64_t* window_rows, int64_t* scatter,
              void* additive, void* row_ok, int64_t* scratch);

}  // namespace lintra::cuda
