// cpu/random.cpp — uniform and normal fills from a Philox generator (core/rng.h).
// Element i of a float32 fill uses word i % 4 of block first + i / 4 (float64: two words per
// element); normals use Box–Muller on pairs of uniforms. Every element is a function of
// (seed, stream, counter) only, so the OpenMP split does not change the numbers.
#include <cmath>

#include "core/cpu/loops.h"
#include "core/kernels.h"
#include "core/rng.h"

namespace lintra::kernels::cpu {

namespace {
constexpr double kTwoPi = 6.283185307179586476925286766559;
}

void uniform(Tensor& out, Generator& gen, double low, double high) {
  const int64_t n = out.numel();
  dispatch_float(out.dtype(), "uniform", [&]<typename scalar_t>() {
    using T = scalar_t;
    T* p = out.data<T>();
    constexpr int64_t per_block = std::is_same_v<T, float> ? 4 : 2;
    const int64_t blocks = (n + per_block - 1) / per_block;
    const uint64_t first = gen.reserve(uint64_t(blocks));
    const T lo = T(low), span = T(high - low);
#pragma omp parallel for schedule(static) if (n >= kParallelGrain)
    for (int64_t b = 0; b < blocks; ++b) {
      auto w = gen.block(first + uint64_t(b));
      for (int64_t k = 0; k < per_block && b * per_block + k < n; ++k) {
        T u;
        if constexpr (std::is_same_v<T, float>) {
          u = u32_to_unit_float(w[size_t(k)]);
        } else {
          u = u64_to_unit_double((uint64_t(w[size_t(2 * k)]) << 32) | w[size_t(2 * k + 1)]);
        }
        p[b * per_block + k] = lo + span * u;
      }
    }
  });
}

void normal(Tensor& out, Generator& gen, double mean, double std) {
  const int64_t n = out.numel();
  dispatch_float(out.dtype(), "normal", [&]<typename scalar_t>() {
    using T = scalar_t;
    T* p = out.data<T>();
    constexpr int64_t per_block = std::is_same_v<T, float> ? 4 : 2;
    const int64_t blocks = (n + per_block - 1) / per_block;
    const uint64_t first = gen.reserve(uint64_t(blocks));
#pragma omp parallel for schedule(static) if (n >= kParallelGrain)
    for (int64_t b = 0; b < blocks; ++b) {
      auto w = gen.block(first + uint64_t(b));
      double z[4];
      if constexpr (std::is_same_v<T, float>) {
        for (int pair = 0; pair < 2; ++pair) {
          double u1 = 1.0 - double(u32_to_unit_float(w[size_t(2 * pair)]));  // (0, 1]
          double u2 = double(u32_to_unit_float(w[size_t(2 * pair + 1)]));
          double r = std::sqrt(-2.0 * std::log(u1));
          z[2 * pair] = r * std::cos(kTwoPi * u2);
          z[2 * pair + 1] = r * std::sin(kTwoPi * u2);
        }
      } else {
        double u1 = 1.0 - u64_to_unit_double((uint64_t(w[0]) << 32) | w[1]);
        double u2 = u64_to_unit_double((uint64_t(w[2]) << 32) | w[3]);
        double r = std::sqrt(-2.0 * std::log(u1));
        z[0] = r * std::cos(kTwoPi * u2);
        z[1] = r * std::sin(kTwoPi * u2);
      }
      for (int64_t k = 0; k < per_block && b * per_block + k < n; ++k) p[b * per_block + k] = T(mean + std * z[k]);
    }
  });
}

}  // namespace lintra::kernels::cpu
