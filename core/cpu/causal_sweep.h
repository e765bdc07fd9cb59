// cpu/causal_sweep.h — the geometry of the fused causal product's state sweeps (cpu/causal_product.cpp,
// Note [state sweeps] there), shared with its tests so that they cross the segment boundaries and the
// tile widths wherever these fall. Internal to core/cpu/.
#pragma once

#include <cstdint>

namespace lintra::kernels::cpu::causal {

// Rows per segment: every tile of a state sweeps one segment of rows before the next segment is
// read, so the segment's inputs (at E = M = 32 in float32, 512 bytes a row for the two problems of
// the backward's second pass) stay in L1 across the tiles.
constexpr int64_t kSegment = 32;

// The widest register tile, in elements: the state's rows are padded to a multiple of the tile's
// rows (≤ 16) and its columns to a multiple of the tile's width (≤ 2 vectors of ≤ 16 float32 lanes).
constexpr int64_t kMaxTileRows = 16;
constexpr int64_t kMaxTileWidth = 32;

}  // namespace lintra::kernels::cpu::causal
