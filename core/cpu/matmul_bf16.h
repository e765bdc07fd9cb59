// cpu/matmul_bf16.h — float32 GEMMs with bfloat16 operands (MatmulPrecision::bf16, core/matmul_precision.h):
//
//   c (M × N, row stride ldc) = op(a)·op(b) + beta·c,   beta 0 or 1,
//
// a and b float32, row-major with leading dims lda, ldb (ta/tb: read transposed, as cblas); each is
// converted to bfloat16 (round to nearest even) by a oneDNN reorder into the layout oneDNN's matmul
// prefers, then multiplied by that matmul (brgemm kernels: AVX512_BF16 dot products, AMX-BF16 tiles),
// which forms each bf16·bf16 product exactly and sums in float32 (beta = 1: a sum post-op onto c).
// Cost: 2·M·N·K flops at the bf16 rate (about twice float32's on Zen 4) plus one conversion pass over
// each operand (M·K + K·N elements, about 1/N and 1/M of the product's work). The bf16 copies live in
// lintra's caching allocator; oneDNN's primitives are made once per shape (oneDNN caches them) and use
// the process's OpenMP threads. Results are reproducible for a given thread count. Internal to core/cpu.
#pragma once

#include <cstdint>

namespace lintra::kernels::cpu {

void gemm_bf16(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const float* a, int64_t lda, const float* b,
               int64_t ldb, float* c, int64_t ldc, float beta);

}  // namespace lintra::kernels::cpu
