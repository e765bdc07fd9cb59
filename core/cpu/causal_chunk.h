// cpu/causal_chunk.h — the chunk geometry of the fused causal product (cpu/causal_product.cpp, Note
// [chunked causal product] there), shared with its tests so that they cross the chunk boundaries and
// the kept-scores limit wherever these fall. Internal to core/cpu/.
#pragma once

#include <cstdint>

namespace lintra::kernels::cpu::causal {

// C: rows per chunk. The per-row cost is 7·E·M for the states plus about C·(E + M)/2 per triangular
// product pair, so a smaller C does less work but runs shorter micro-kernel loops. On a Zen 4
// (experiments/kernels/README.md, session 10) C = 32 ran 5–10% faster than 48 and about 10% faster
// than 64, on AVX-512 and on AVX2; on Zen 3 (AVX2) 16–64 had run within noise.
constexpr int64_t kChunk = 32;

// The backward keeps every chunk's C×C score block from pass 1 for pass 2 while they take at most
// this many bytes per thread (N·C elements), and recomputes them beyond, so memory stays bounded.
constexpr int64_t kMaxKeptScoreBytes = int64_t(1) << 20;

// The longest sequence whose score blocks are kept, for elements of `element_bytes` bytes
// (float32: 8,192; float64: 4,096).
constexpr int64_t max_kept_length(int64_t element_bytes) {
  return kMaxKeptScoreBytes / (kChunk * kChunk * element_bytes) * kChunk;
}

}  // namespace lintra::kernels::cpu::causal
