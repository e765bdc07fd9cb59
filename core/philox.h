// philox.h — one Philox-4x32-10 block (Salmon et al., SC 2011) and the conversions of its words to
// uniform floats, as inline functions that the host (core/rng.cpp, core/cpu/random.cpp) and the CUDA
// kernels (core/cuda/random.cu) share: one formula on every device, so a (seed, stream, counter)
// gives the same bits on the CPU and the GPU and dropout masks agree.
//
// Counter (c0, c1, c2, c3) = (counter_lo, counter_hi) as four 32-bit words, key (k0, k1) = key; each
// of ten rounds: two 32×32 → 64-bit products p0 = M0·c0, p1 = M1·c2, then
//   (c0, c1, c2, c3) ← (hi(p1) ⊕ c1 ⊕ k0, lo(p1), hi(p0) ⊕ c3 ⊕ k1, lo(p0)),  k0 += W0, k1 += W1.
// Cost: 20 multiplies and ~40 other integer ops per block of four words.
// core/rng.h's u32_to_unit_float and u64_to_unit_double are these conversions for host code
// (tests/core/test_rng.cpp checks that the two agree).
#pragma once

#include <cstdint>

#include "core/scalar_ops.h"  // LINTRA_HD

namespace lintra::philox {

struct Words {
  uint32_t w[4];
};

LINTRA_HD inline Words block(uint64_t counter_lo, uint64_t counter_hi, uint64_t key) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  uint32_t c0 = uint32_t(counter_lo), c1 = uint32_t(counter_lo >> 32);
  uint32_t c2 = uint32_t(counter_hi), c3 = uint32_t(counter_hi >> 32);
  uint32_t k0 = uint32_t(key), k1 = uint32_t(key >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t(kMul0) * c0;
    const uint64_t p1 = uint64_t(kMul1) * c2;
    const uint32_t n0 = uint32_t(p1 >> 32) ^ c1 ^ k0;
    const uint32_t n1 = uint32_t(p1);
    const uint32_t n2 = uint32_t(p0 >> 32) ^ c3 ^ k1;
    const uint32_t n3 = uint32_t(p0);
    c0 = n0, c1 = n1, c2 = n2, c3 = n3;
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  return {{c0, c1, c2, c3}};
}

// Uniform float in [0, 1) from the top 24 bits of a word (exact: 2⁻²⁴ steps); double from 53 bits.
LINTRA_HD inline float unit_float(uint32_t x) { return float(x >> 8) * (1.0f / 16777216.0f); }
LINTRA_HD inline double unit_double(uint64_t x) { return double(x >> 11) * (1.0 / 9007199254740992.0); }
// The float64 fills' element k (0 or 1) of a block: words 2k (high) and 2k + 1 (low).
LINTRA_HD inline uint64_t pair(const Words& b, int k) { return (uint64_t(b.w[2 * k]) << 32) | b.w[2 * k + 1]; }

}  // namespace lintra::philox
