#include "core/rng.h"

#include "core/error.h"
#include "core/philox.h"

namespace lintra {

std::array<uint32_t, 4> philox4x32(uint64_t counter_lo, uint64_t counter_hi, uint64_t key) {
  const philox::Words b = philox::block(counter_lo, counter_hi, key);
  return {b.w[0], b.w[1], b.w[2], b.w[3]};
}

uint32_t Generator::next_u32() { return block(reserve(1))[0]; }

uint64_t Generator::next_u64() {
  auto b = block(reserve(1));
  return (uint64_t(b[0]) << 32) | b[1];
}

double Generator::next_double() { return u64_to_unit_double(next_u64()); }

int64_t Generator::randint(int64_t low, int64_t high) {
  LINTRA_CHECK(high > low, "randint: empty range [{}, {})", low, high);
  uint64_t range = uint64_t(high - low);
  // Rejection sampling on 64 bits: unbiased for every range.
  uint64_t limit = UINT64_MAX - (UINT64_MAX % range);
  for (;;) {
    uint64_t x = next_u64();
    if (x < limit) return low + int64_t(x % range);
  }
}

std::vector<int64_t> Generator::randperm(int64_t n) {
  LINTRA_CHECK(n >= 0, "randperm: negative size {}", n);
  std::vector<int64_t> p(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) p[size_t(i)] = i;
  for (int64_t i = n - 1; i > 0; --i) std::swap(p[size_t(i)], p[size_t(randint(0, i + 1))]);
  return p;
}

}  // namespace lintra
