// rng.h — counter-based random numbers (Philox-4x32-10, Salmon et al., SC 2011).
//
// A Generator is (seed, offset): the 128-bit counter of block i is (offset + i) and the key is the
// seed. Every draw of n numbers consumes ceil(n / 4) blocks and advances offset, so any element of a
// draw can be computed independently (parallel fills give the same numbers as serial ones), and the
// whole state is two integers to checkpoint. The transforms to uniform/normal are lintra's own, so
// the same seed gives the same numbers on every machine and compiler.
//
// Streams: Generator(seed, stream) puts `stream` in the upper half of the counter, giving independent
// sequences from one seed (init, dropout, shuffling, LSH hashing each get their own).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace lintra {

struct GeneratorState {
  uint64_t seed = 0;
  uint64_t stream = 0;
  uint64_t offset = 0;  // blocks of 4 × 32 bits consumed
  bool operator==(const GeneratorState&) const = default;
};

// One Philox-4x32-10 block: four 32-bit outputs for (counter, key).
std::array<uint32_t, 4> philox4x32(uint64_t counter_lo, uint64_t counter_hi, uint64_t key);

class Generator {
 public:
  explicit Generator(uint64_t seed = 0, uint64_t stream = 0) : state_{seed, stream, 0} {}

  GeneratorState state() const { return state_; }
  void set_state(const GeneratorState& s) { state_ = s; }

  // Reserves `blocks` counter blocks and returns the first; fills use blocks [first, first + blocks).
  uint64_t reserve(uint64_t blocks) {
    uint64_t first = state_.offset;
    state_.offset += blocks;
    return first;
  }
  // The 4 raw words of block `b` of this generator's sequence.
  std::array<uint32_t, 4> block(uint64_t b) const { return philox4x32(b, state_.stream, state_.seed); }

  // Scalar draws (each consumes one block).
  uint32_t next_u32();
  uint64_t next_u64();
  double next_double();                  // uniform in [0, 1) with 53 random bits
  int64_t randint(int64_t low, int64_t high);  // uniform in [low, high), unbiased
  std::vector<int64_t> randperm(int64_t n);    // Fisher–Yates

 private:
  GeneratorState state_;
};

// Uniform float in [0, 1) from 24 random bits; uniform double in [0, 1) from 53 bits.
inline float u32_to_unit_float(uint32_t x) { return float(x >> 8) * (1.0f / 16777216.0f); }
inline double u64_to_unit_double(uint64_t x) { return double(x >> 11) * (1.0 / 9007199254740992.0); }

}  // namespace lintra
