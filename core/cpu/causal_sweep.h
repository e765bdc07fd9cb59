// cpu/causal_sweep.h — the geometry of the fused causal product's state sweeps (cpu/causal_product.cpp,
// Note [state sweeps] there), shared with its tests so that they cross the segment boundaries and the
// tile widths wherever these fall. Internal to core/cpu/.
#pragma once

#include <cstdint>

namespace lintra::kernels::cpu::causal {

// Rows per segment: every tile of a state sweeps one segment of rows before the next segment is
// read, so the segment's rows stay in L1 across the tiles (Note [segment length]). The length is
// one of these, chosen per pass by segment_rows; scratch is sized for the longest.
constexpr int64_t kMaxSegment = 32;
constexpr int64_t kSegmentChoices[] = {32, 16, 8};

// The widest register tile, in elements: the state's rows are padded to a multiple of the tile's
// rows (≤ 16) and its columns to a multiple of the tile's width (≤ 2 vectors of ≤ 16 float32 lanes).
constexpr int64_t kMaxTileRows = 16;
constexpr int64_t kMaxTileWidth = 32;

// Note [segment length]
// A pass's tiles re-read its segment from L1 once per tile (up to 32 times with AVX2's 4 × 2 tiles),
// so the segment must stay there beside the state tiles, the hardware prefetcher's next lines and
// the stack. A pass takes the longest of 32, 16, 8 rows whose segment — the distinct rows its sweeps
// read and write, plus their states — fits in half of L1d; 8 when none does. At E = M = 32 in
// float32 on a 32 KB L1d the forward and the backward's first pass take 16 rows, the second pass 8;
// at the bench's E = 32, M = 64 every pass takes 8; a 48 KB L1d takes 32, 16 and 16. Measured on a
// 2-core Zen 4 (32 KB L1d; experiments/kernels/README.md, session 14): 32-row segments lost up to
// 25% in the forward on the shapes that stream from memory (the bench's, the paper's MNIST and
// CIFAR-10 layers) and won 5–20% only where a whole head sits in L2 (B·H = 8). The length changes
// no result: the state passes from one segment to the next through scratch unrounded.
int64_t segment_rows(int64_t row_bytes, int64_t state_bytes, int64_t l1d_bytes);

// This CPU's L1 data cache in bytes (sysconf), 32 KiB when the system does not say.
int64_t l1d_bytes();

// Tests and the kernel lab force a segment length (one of kSegmentChoices); 0 chooses again.
void force_segment_rows(int64_t rows);
int64_t forced_segment_rows();  // 0 when none is forced

}  // namespace lintra::kernels::cpu::causal
