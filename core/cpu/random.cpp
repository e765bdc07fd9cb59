// cpu/random.cpp — uniform and normal fills from a Philox generator (core/rng.h), and dropout.
// Element i of a float32 fill uses word i % 4 of block first + i / 4 (float64: two words per
// element); normals use Box–Muller on pairs of uniforms. Every element is a function of
// (seed, stream, counter) only, so the OpenMP split and the SIMD target do not change the numbers.
//
// Float32 uniform fills (dropout's masks, every training step) run Philox-4x32-10 over L blocks at a
// time in Highway vectors, dispatched at run time like every core/cpu kernel: the four counter words
// of L consecutive blocks sit in four vectors of L u32 lanes (lane j: block b + j), and a round is
//   (c0, c1, c2, c3) ← (hi(M1·c2) ⊕ c1 ⊕ k0, lo(M1·c2), hi(M0·c0) ⊕ c3 ⊕ k1, lo(M0·c0)),
//   k0 += W0, k1 += W1,
// ten times; lo() is the 32-bit product, hi() comes from two 32×32→64 even-lane products (the odd
// lanes shifted down for the second). The words then become u = (w >> 8)·2⁻²⁴ and lo + span·u, stored
// interleaved so element 4(b + j) + w holds word w of lane j. Both paths round span·u, then the sum
// (this file is compiled with -ffp-contract=off: no fused multiply-add), as core/cuda/random.cu does,
// so every target and the GPU give the same bits. Cost: per block 20 multiplies
// (10 rounds × 2 products) and ≈ 30 other integer ops, per L blocks; about 8× fewer instructions per
// element than the scalar loop with 8 lanes (AVX2). A vector whose low counter word would wrap
// (once per 2³² blocks) and the last partial block take the scalar path.
// Float64 fills and normals stay scalar (weight initialisation and float64 checks, not the hot loop).
//
// Dropout (kernels.h `dropout`) runs the same vector Philox and, instead of storing u, multiplies the
// de-interleaved x by (u < keep ? scale : 0): out = x · bernoulli(keep)·scale with the mask never in
// memory. One read and one write of n floats, against five of each for the op-by-op form (fill,
// compare, convert, scale, multiply) and its n-float mask kept until the backward; the backward calls
// the kernel again on the gradient with the same blocks, recomputing the mask instead of reading it.
// The optional gate (relu before the dropout: zero where gate ≤ 0) and residual (added after) fold
// the passes of those ops into the same one (autograd relu_dropout and dropout_add).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/cpu/random.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#ifndef LINTRA_CORE_CPU_RANDOM_ONCE_
#define LINTRA_CORE_CPU_RANDOM_ONCE_
#include <cstdint>

#include "core/philox.h"

namespace lintra::kernels::cpu {
// The scalar path of a float32 uniform fill: blocks [b0, b1) of (stream, seed) into out (4 per block,
// the last block cut to `last` elements when b1 is the fill's end).
inline void uniform_blocks_scalar(uint64_t first, int64_t b0, int64_t b1, uint64_t stream, uint64_t seed, float lo,
                                  float span, float* out, int64_t n) {
  for (int64_t b = b0; b < b1; ++b) {
    const philox::Words w = philox::block(first + uint64_t(b), stream, seed);
    for (int64_t k = 0; k < 4 && b * 4 + k < n; ++k) out[b * 4 + k] = lo + span * philox::unit_float(w.w[k]);
  }
}

// The operands of one dropout call (kernels.h `dropout`): gate and residual null when absent.
struct DropoutIO {
  const float* x;
  const float* gate;
  const float* residual;
  float* out;
};

// The scalar path of dropout: blocks [b0, b1) applied to x (the last block cut to n elements).
inline void dropout_blocks_scalar(uint64_t first, int64_t b0, int64_t b1, uint64_t stream, uint64_t seed, float keep,
                                  float scale, const DropoutIO& io, int64_t n) {
  for (int64_t b = b0; b < b1; ++b) {
    const philox::Words w = philox::block(first + uint64_t(b), stream, seed);
    for (int64_t i = b * 4; i < b * 4 + 4 && i < n; ++i) {
      float d = io.x[i] * (philox::unit_float(w.w[i - b * 4]) < keep ? scale : 0.0f);
      if (io.gate != nullptr && !(io.gate[i] > 0.0f)) d = 0.0f;
      io.out[i] = io.residual != nullptr ? io.residual[i] + d : d;
    }
  }
}
}  // namespace lintra::kernels::cpu
#endif

// --- per-target parts ------------------------------------------------------------------------------
HWY_BEFORE_NAMESPACE();
namespace lintra::kernels::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace {

// The high 32 bits of a·m per lane.
template <class D, class V> HWY_INLINE V mul_hi(D d, V a, uint32_t m) {
#if HWY_TARGET == HWY_SCALAR
  return hn::Set(d, uint32_t((uint64_t(hn::GetLane(a)) * m) >> 32));
#else
  const hn::Repartition<uint64_t, D> d64;
  const auto vm = hn::Set(d, m);
  const auto even = hn::BitCast(d, hn::MulEven(a, vm));                                   // (lo, hi) of even lanes
  const auto odd = hn::BitCast(d, hn::MulEven(hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(d64, a))), vm));
  return hn::OddEven(odd, hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(d64, even))));
#endif
}

// Ten Philox rounds on the counter words c0..c3 of L blocks, key (k0, k1).
template <class D, class V> HWY_INLINE void philox_rounds(D d, V& c0, V& c1, V& c2, V& c3, uint64_t key) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  uint32_t k0 = uint32_t(key), k1 = uint32_t(key >> 32);
  const auto m0 = hn::Set(d, kMul0), m1 = hn::Set(d, kMul1);
  for (int round = 0; round < 10; ++round) {
    const V n0 = hn::Xor(hn::Xor(mul_hi(d, c2, kMul1), c1), hn::Set(d, k0));
    const V n1 = hn::Mul(c2, m1);
    const V n2 = hn::Xor(hn::Xor(mul_hi(d, c0, kMul0), c3), hn::Set(d, k1));
    const V n3 = hn::Mul(c0, m0);
    c0 = n0, c1 = n1, c2 = n2, c3 = n3;
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
}

}  // namespace

// The Philox words of blocks [b0, b1) of (stream, seed) from block `first`, L blocks at a time:
// words(b, c0, c1, c2, c3) gets blocks b … b + L − 1 (lane j: block b + j, vector w: its word w);
// scalar(b, e) takes the blocks the vectors leave: a vector whose low counter word would wrap and the
// last fewer than L.
template <class D, class Words, class Scalar>
HWY_INLINE void for_each_word_vector(D du, uint64_t first, int64_t b0, int64_t b1, uint64_t stream, uint64_t seed,
                                     const Words& words, const Scalar& scalar) {
  const int64_t L = int64_t(hn::Lanes(du));
  // Lane offsets 0 … L−1 once: Highway 1.0.3's Iota fills the lanes through the stack, and a store of
  // eight words read back as one vector stalls every iteration (the portable build: perf annotate).
  const auto lane = hn::Iota(du, 0);
  int64_t b = b0;
  for (; b + L <= b1; b += L) {
    const uint64_t counter = first + uint64_t(b);
    if (uint32_t(counter) > UINT32_MAX - uint32_t(L - 1)) {  // the low word wraps inside this vector
      scalar(b, b + L);
      continue;
    }
    auto c0 = hn::Add(lane, hn::Set(du, uint32_t(counter))), c1 = hn::Set(du, uint32_t(counter >> 32));
    auto c2 = hn::Set(du, uint32_t(stream)), c3 = hn::Set(du, uint32_t(stream >> 32));
    philox_rounds(du, c0, c1, c2, c3, seed);
    words(b, c0, c1, c2, c3);
  }
  scalar(b, b1);
}

// u = (w >> 8)·2⁻²⁴ ∈ [0, 1) per lane, exactly (philox::unit_float's formula).
template <class DF, class V> HWY_INLINE hn::Vec<DF> unit_floats(DF df, V w) {
  const hn::RebindToSigned<DF> di;
  return hn::Mul(hn::ConvertTo(df, hn::BitCast(di, hn::ShiftRight<8>(w))), hn::Set(df, 1.0f / 16777216.0f));
}

// Blocks [b0, b1) of the fill starting at block `first`: 4·(b1 − b0) floats lo + span·u into out[4·b0 …].
void UniformBlocksF32(uint64_t first, int64_t b0, int64_t b1, uint64_t stream, uint64_t seed, float lo, float span,
                      float* out) {
  const hn::ScalableTag<uint32_t> du;
  const hn::Rebind<float, decltype(du)> df;
  const auto vlo = hn::Set(df, lo), vspan = hn::Set(df, span);
  const auto to_float = [&](auto w) { return hn::Add(hn::Mul(vspan, unit_floats(df, w)), vlo); };
  for_each_word_vector(
      du, first, b0, b1, stream, seed,
      [&](int64_t b, auto c0, auto c1, auto c2, auto c3) {
        hn::StoreInterleaved4(to_float(c0), to_float(c1), to_float(c2), to_float(c3), df, out + 4 * b);
      },
      [&](int64_t b, int64_t e) { uniform_blocks_scalar(first, b, e, stream, seed, lo, span, out, INT64_MAX); });
}

// Dropout over blocks [b0, b1): the words as above; x (and the gate and residual when kGate,
// kResidual) is read de-interleaved (vector w holds element 4(b + j) + w in lane j, the word it
// meets), d = x · (u < keep ? scale : 0), zero where the gate is not > 0, plus the residual, stored
// back interleaved. The multiply by zero keeps x's sign and NaNs, as x · mask does.
template <bool kGate, bool kResidual>
void dropout_blocks(uint64_t first, int64_t b0, int64_t b1, uint64_t stream, uint64_t seed, float keep, float scale,
                    const DropoutIO& io) {
  const hn::ScalableTag<uint32_t> du;
  const hn::Rebind<float, decltype(du)> df;
  using VF = hn::Vec<decltype(df)>;
  const auto vkeep = hn::Set(df, keep), vscale = hn::Set(df, scale);
  const auto apply = [&](auto w, VF xv, VF gv, VF rv) {
    VF d = hn::Mul(xv, hn::IfThenElseZero(hn::Lt(unit_floats(df, w), vkeep), vscale));
    if constexpr (kGate) d = hn::IfThenElseZero(hn::Gt(gv, hn::Zero(df)), d);
    if constexpr (kResidual) d = hn::Add(rv, d);
    return d;
  };
  for_each_word_vector(
      du, first, b0, b1, stream, seed,
      [&](int64_t b, auto c0, auto c1, auto c2, auto c3) {
        VF x0, x1, x2, x3;
        VF g0 = hn::Zero(df), g1 = g0, g2 = g0, g3 = g0, r0 = g0, r1 = g0, r2 = g0, r3 = g0;
        hn::LoadInterleaved4(df, io.x + 4 * b, x0, x1, x2, x3);
        if constexpr (kGate) hn::LoadInterleaved4(df, io.gate + 4 * b, g0, g1, g2, g3);
        if constexpr (kResidual) hn::LoadInterleaved4(df, io.residual + 4 * b, r0, r1, r2, r3);
        hn::StoreInterleaved4(apply(c0, x0, g0, r0), apply(c1, x1, g1, r1), apply(c2, x2, g2, r2),
                              apply(c3, x3, g3, r3), df, io.out + 4 * b);
      },
      [&](int64_t b, int64_t e) { dropout_blocks_scalar(first, b, e, stream, seed, keep, scale, io, INT64_MAX); });
}

void DropoutBlocksF32(uint64_t first, int64_t b0, int64_t b1, uint64_t stream, uint64_t seed, float keep, float scale,
                      const DropoutIO& io) {
  const bool gate = io.gate != nullptr, residual = io.residual != nullptr;
  if (gate && residual) dropout_blocks<true, true>(first, b0, b1, stream, seed, keep, scale, io);
  else if (gate) dropout_blocks<true, false>(first, b0, b1, stream, seed, keep, scale, io);
  else if (residual) dropout_blocks<false, true>(first, b0, b1, stream, seed, keep, scale, io);
  else dropout_blocks<false, false>(first, b0, b1, stream, seed, keep, scale, io);
}

}  // namespace lintra::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

// --- the kernels ---------------------------------------------------------------------------------------
#if HWY_ONCE
#include <cmath>

#include "core/cpu/loops.h"
#include "core/kernels.h"
#include "core/rng.h"

namespace lintra::kernels::cpu {

HWY_EXPORT(UniformBlocksF32);
HWY_EXPORT(DropoutBlocksF32);

namespace {
constexpr double kTwoPi = 6.283185307179586476925286766559;

// A float32 fill of n elements from block `first`: whole blocks on the dispatched vector path, in runs
// handed to the OpenMP threads one at a time (cpu/loops.h; each element's value depends only on its
// position); the last partial block (n % 4 elements) scalar.
void uniform_f32(float* p, int64_t n, uint64_t first, const GeneratorState& s, float lo, float span) {
  const int64_t whole = n / 4;
  for_each_block(whole, kBlockElements / 4, n >= kParallelGrain, [&](int64_t b0, int64_t b1) {
    HWY_DYNAMIC_DISPATCH(UniformBlocksF32)(first, b0, b1, s.stream, s.seed, lo, span, p);
  });
  uniform_blocks_scalar(first, whole, (n + 3) / 4, s.stream, s.seed, lo, span, p, n);
}
}  // namespace

void uniform(Tensor& out, Generator& gen, double low, double high) {
  const int64_t n = out.numel();
  dispatch_float(out.dtype(), "uniform", [&]<typename scalar_t>() {
    using T = scalar_t;
    T* p = out.data<T>();
    constexpr int64_t per_block = std::is_same_v<T, float> ? 4 : 2;
    const int64_t blocks = (n + per_block - 1) / per_block;
    const uint64_t first = gen.reserve(uint64_t(blocks));
    const T lo = T(low), span = T(high - low);
    if constexpr (std::is_same_v<T, float>) {
      uniform_f32(p, n, first, gen.state(), lo, span);
    } else {
      for_each_block(blocks, kBlockElements / 2, n >= kParallelGrain, [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
          const philox::Words w = philox::block(first + uint64_t(b), gen.state().stream, gen.state().seed);
          for (int64_t k = 0; k < per_block && b * per_block + k < n; ++k)
            p[b * per_block + k] = lo + span * philox::unit_double(philox::pair(w, int(k)));
        }
      });
    }
  });
}

// Whole blocks on the dispatched vector path in runs over the threads, as uniform_f32; the last partial
// block scalar. Element i meets the word the uniform fill would write at i, whatever the split.
void dropout(const Tensor& x_in, const Tensor& gate_in, const Tensor& residual_in, uint64_t first, uint64_t stream,
             uint64_t seed, float keep, float scale, Tensor& out) {
  const Tensor x = x_in.contiguous();
  const Tensor gate = gate_in.defined() ? gate_in.contiguous() : Tensor();
  const Tensor residual = residual_in.defined() ? residual_in.contiguous() : Tensor();
  const DropoutIO io{x.data<float>(), gate.defined() ? gate.data<float>() : nullptr,
                     residual.defined() ? residual.data<float>() : nullptr, out.data<float>()};
  const int64_t n = x.numel(), whole = n / 4;
  for_each_block(whole, kBlockElements / 4, n >= kParallelGrain, [&](int64_t b0, int64_t b1) {
    HWY_DYNAMIC_DISPATCH(DropoutBlocksF32)(first, b0, b1, stream, seed, keep, scale, io);
  });
  dropout_blocks_scalar(first, whole, (n + 3) / 4, stream, seed, keep, scale, io, n);
}

void normal(Tensor& out, Generator& gen, double mean, double std) {
  const int64_t n = out.numel();
  dispatch_float(out.dtype(), "normal", [&]<typename scalar_t>() {
    using T = scalar_t;
    T* p = out.data<T>();
    constexpr int64_t per_block = std::is_same_v<T, float> ? 4 : 2;
    const int64_t blocks = (n + per_block - 1) / per_block;
    const uint64_t first = gen.reserve(uint64_t(blocks));
    for_each_block(blocks, kBlockElements / 4, n >= kParallelGrain, [&](int64_t b0, int64_t b1) {
     for (int64_t b = b0; b < b1; ++b) {
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
  });
}

}  // namespace lintra::kernels::cpu
#endif  // HWY_ONCE
