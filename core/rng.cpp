#include "core/rng.h"

#include "core/error.h"

namespace lintra {

std::array<uint32_t, 4> philox4x32(uint64_t counter_lo, uint64_t counter_hi, uint64_t key) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  uint32_t c0 = uint32_t(counter_lo), c1 = uint32_t(counter_lo >> 32);
  uint32_t c2 = uint32_t(counter_hi), c3 = uint32_t(counter_hi >> 32);
  uint32_t k0 = uint32_t(key), k1 = uint32_t(key >> 32);
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = uint64_t(kMul0) * c0;
    uint64_t p1 = uint64_t(kMul1) * c2;
    uint32_t n0 = uint32_t(p1 >> 32) ^ c1 ^ k0;
    uint32_t n1 = uint32_t(p1);
    uint32_t n2 = uint32_t(p0 >> 32) ^ c3 ^ k1;
    uint32_t n3 = uint32_t(p0);
    c0 = n0; c1 = n1; c2 = n2; c3 = n3;
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  return {c0, c1, c2, c3};
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
