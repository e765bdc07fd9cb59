// cpu/gemv_packed.cpp — simd::pack_rows_f32 / pack_rows_bf16 and simd::gemv_packed (core/host_simd.h)
// over Highway, compiled for every x86 target (SSSE3, SSE4, AVX2, AVX-512; scalar as the fallback);
// HWY_DYNAMIC_DISPATCH picks the best per call.
//
//   y[b, r] = (Σ_k W[r, k]·x[b, k]) + bias[r],   the sum in ascending k, one float32 lane per row r.
//
// Layout: rows in groups of 16 (the last padded with zero rows), each group stored column by column —
// float32: W[16g + j, k] at (g·in + k)·16 + j; bf16: the columns in pairs, one 32-bit word per row and
// pair, W[16g + j, 2p] in its low half and W[16g + j, 2p + 1] in its high half (an odd `in` padded
// with a zero column). A tile of T groups (8 vector accumulators: T = 8·lanes/16, at least one group)
// then reads T sequential streams (one per group, a 64-byte line per column, per pair in bf16), one
// broadcast of x[b, k] and 16·T/lanes weight vectors per column, with no horizontal sums at all. A
// bf16 word widens to its two float32 weights with one shift and one mask (exact), and the pair's two
// products are added in order k, k + 1, so the bf16 result is the float32 result of the rounded
// weights bit for bit.
//
// Why this layout: at batch 1 a token's products stream every weight once and nothing else, so the
// rate is the rate the weights arrive at. The row-major dot products it replaced read 4 rows as 4
// interleaved streams and finished each row with a horizontal sum; on a 2-core Zen 2 (AVX2, 16 MB L3),
// one thread, side by side (experiments/kernels/gemv_packed.cpp, session 18): the paper's 8-layer MNIST
// weights from memory 3.1 → 5.1 GMAC/s in float32 (25 MB) and 8.2 → 16.1 in bf16 (12.6 MB); one layer
// from L3 15.5 → 19.0 and 16.2 → 26.4.
// Cost: 2·B·rows·in FLOPs over 4·rows·in bytes (2 in bf16); a tile's weights (T·16·in values) are
// read once per batch row, from L2 after the first.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/cpu/gemv_packed.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#ifndef LINTRA_CORE_CPU_GEMV_PACKED_ONCE_
#define LINTRA_CORE_CPU_GEMV_PACKED_ONCE_
#include <algorithm>
#include <utility>

#include "core/error.h"
#include "core/host_simd.h"
#endif

// --- per-target parts ------------------------------------------------------------------------------
HWY_BEFORE_NAMESPACE();
namespace lintra::kernels::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace {

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;
constexpr size_t kLanes = hn::MaxLanes(D());
constexpr size_t kGroup = simd::PackedRows::kGroup;
static_assert(kGroup % kLanes == 0, "a group of rows fills whole vectors");
constexpr size_t kVectorsPerGroup = kGroup / kLanes;
// Groups per tile: eight accumulators cover the FMA latency (4–5 cycles, two pipes); scalar keeps one group.
constexpr size_t kTileGroups = kVectorsPerGroup >= 8 ? 1 : 8 / kVectorsPerGroup;

// out[16·t + j] (t < T groups from `p`, which addresses the tile's first group) = Σ_k W·x[k], float32.
template <size_t T>
HWY_INLINE void tile_f32(const float* HWY_RESTRICT p, int64_t in, const float* HWY_RESTRICT x, float* out) {
  const D d;
  V acc[T][kVectorsPerGroup];
  for (size_t t = 0; t < T; ++t)
    for (size_t v = 0; v < kVectorsPerGroup; ++v) acc[t][v] = hn::Zero(d);
  for (int64_t k = 0; k < in; ++k) {
    const V xk = hn::Set(d, x[k]);
    for (size_t t = 0; t < T; ++t) {
      const float* col = p + (int64_t(t) * in + k) * int64_t(kGroup);
      for (size_t v = 0; v < kVectorsPerGroup; ++v) acc[t][v] = hn::MulAdd(hn::LoadU(d, col + v * kLanes), xk, acc[t][v]);
    }
  }
  for (size_t t = 0; t < T; ++t)
    for (size_t v = 0; v < kVectorsPerGroup; ++v) hn::StoreU(acc[t][v], d, out + t * kGroup + v * kLanes);
}

// The same from bf16 column pairs (in2 = ⌈in/2⌉ words per row of a group).
template <size_t T>
HWY_INLINE void tile_bf16(const uint32_t* HWY_RESTRICT p, int64_t in, const float* HWY_RESTRICT x, float* out) {
  const D d;
  const hn::RebindToUnsigned<D> du;
  const auto high = hn::Set(du, 0xFFFF0000u);
  const int64_t in2 = (in + 1) / 2;
  V acc[T][kVectorsPerGroup];
  for (size_t t = 0; t < T; ++t)
    for (size_t v = 0; v < kVectorsPerGroup; ++v) acc[t][v] = hn::Zero(d);
  for (int64_t k2 = 0; k2 < in2; ++k2) {
    const V x0 = hn::Set(d, x[2 * k2]);
    const V x1 = hn::Set(d, 2 * k2 + 1 < in ? x[2 * k2 + 1] : 0.0f);  // the padded column's weights are 0
    for (size_t t = 0; t < T; ++t) {
      const uint32_t* col = p + (int64_t(t) * in2 + k2) * int64_t(kGroup);
      for (size_t v = 0; v < kVectorsPerGroup; ++v) {
        const auto w = hn::LoadU(du, col + v * kLanes);
        acc[t][v] = hn::MulAdd(hn::BitCast(d, hn::ShiftLeft<16>(w)), x0, acc[t][v]);
        acc[t][v] = hn::MulAdd(hn::BitCast(d, hn::And(w, high)), x1, acc[t][v]);
      }
    }
  }
  for (size_t t = 0; t < T; ++t)
    for (size_t v = 0; v < kVectorsPerGroup; ++v) hn::StoreU(acc[t][v], d, out + t * kGroup + v * kLanes);
}

// Groups [g0, g1) of W for every batch row: tiles of kTileGroups groups, then single groups; each
// tile's sums get the bias and go to the rows of y below r1.
template <bool kBf16>
HWY_INLINE void gemv_groups(const simd::PackedRows& W, const float* bias, const float* x, float* y, int64_t B,
                            int64_t g0, int64_t g1, int64_t r1) {
  const int64_t in = W.in, rows = W.rows;
  const int64_t group_words = kBf16 ? (in + 1) / 2 * int64_t(kGroup) : in * int64_t(kGroup);
  HWY_ALIGN float out[kTileGroups * kGroup];
  auto finish = [&](int64_t g, size_t groups, int64_t b) {
    const int64_t first = g * int64_t(kGroup), last = std::min(r1, first + int64_t(groups * kGroup));
    float* yb = y + b * rows;
    for (int64_t r = first; r < last; ++r) yb[r] = out[r - first] + bias[r];
  };
  auto run = [&]<size_t T>(int64_t g, int64_t b) {
    if constexpr (kBf16) tile_bf16<T>(W.bf16() + g * group_words, in, x + b * in, out);
    else tile_f32<T>(W.f32() + g * group_words, in, x + b * in, out);
    finish(g, T, b);
  };
  // Whole tiles, then what is left in tiles of 4, 2 and 1 groups: a single group has one accumulator
  // per vector and waits out the FMA latency at every column (a quarter of the rate the stream of a
  // block needs), two or four keep enough in flight. Each row's sum is the same whatever tile it
  // falls in (its own accumulator, the columns in order), so a block's rows do not depend on where
  // the block starts or ends.
  int64_t g = g0;
  for (; g + int64_t(kTileGroups) <= g1; g += int64_t(kTileGroups))
    for (int64_t b = 0; b < B; ++b) run.template operator()<kTileGroups>(g, b);
  auto rest = [&]<size_t T>() {
    if constexpr (T < kTileGroups) {
      for (; g + int64_t(T) <= g1; g += int64_t(T))
        for (int64_t b = 0; b < B; ++b) run.template operator()<T>(g, b);
    }
  };
  rest.template operator()<4>();
  rest.template operator()<2>();
  rest.template operator()<1>();
}

}  // namespace

void GemvPacked(const simd::PackedRows& W, const float* bias, const float* x, float* y, int64_t B, int64_t r0,
                int64_t r1) {
  const int64_t g0 = r0 / int64_t(kGroup), g1 = (r1 + int64_t(kGroup) - 1) / int64_t(kGroup);
  if (W.format == simd::PackedRows::Format::bf16) gemv_groups<true>(W, bias, x, y, B, g0, g1, r1);
  else gemv_groups<false>(W, bias, x, y, B, g0, g1, r1);
}

}  // namespace lintra::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace lintra {
namespace kernels::cpu {
HWY_EXPORT(GemvPacked);
namespace {
void dispatch_gemv_packed(const simd::PackedRows& W, const float* bias, const float* x, float* y, int64_t B, int64_t r0,
                          int64_t r1) {
  HWY_DYNAMIC_DISPATCH(GemvPacked)(W, bias, x, y, B, r0, r1);
}
}  // namespace
}  // namespace kernels::cpu

namespace simd {

namespace {

constexpr int64_t kGroupRows = PackedRows::kGroup;

int64_t packed_words(PackedRows::Format format, int64_t rows, int64_t in) {
  const int64_t groups = (rows + kGroupRows - 1) / kGroupRows;
  return groups * (format == PackedRows::Format::f32 ? in : (in + 1) / 2) * kGroupRows;
}

// The packed form's header and words: `into` checked (or a block of its own made), then
// pack_group(g, out) writes group g's words at out, group by group in parallel when there is enough.
template <typename Word, typename PackGroup>
PackedRows pack_rows(PackedRows::Format format, const char* what, int64_t rows, int64_t in, Tensor into,
                     PackGroup pack_group) {
  LINTRA_CHECK(rows >= 1 && in >= 1, "{}: rows and in must be positive, got {} and {}", what, rows, in);
  const int64_t bytes = packed_rows_bytes(format, rows, in);
  if (!into.defined()) into = Tensor::empty({bytes}, DType::u8);
  LINTRA_CHECK(into.dtype() == DType::u8 && into.device() == Device::cpu && into.is_contiguous() &&
                   into.numel() >= bytes && reinterpret_cast<uintptr_t>(into.raw_data()) % 64 == 0,
               "{}: the destination must be a contiguous, 64-byte aligned host byte tensor of at least {} bytes, got {}",
               what, bytes, into.describe());
  PackedRows p{.format = format, .rows = rows, .in = in, .words = into.narrow(0, 0, bytes)};
  Word* out = static_cast<Word*>(p.words.raw_data());
  const int64_t groups = (rows + kGroupRows - 1) / kGroupRows;
  const int64_t group_words = packed_words(format, kGroupRows, in);
#pragma omp parallel for schedule(static) if (rows * in >= (int64_t(1) << 18))
  for (int64_t g = 0; g < groups; ++g) pack_group(g, out + g * group_words);
  return p;
}

}  // namespace

int64_t packed_rows_bytes(PackedRows::Format format, int64_t rows, int64_t in) {
  return (packed_words(format, rows, in) * 4 + 63) / 64 * 64;
}

PackedRows pack_rows_f32(const float* W, int64_t rows, int64_t in, Tensor into) {
  constexpr int64_t G = kGroupRows;
  return pack_rows<float>(PackedRows::Format::f32, "pack_rows_f32", rows, in, std::move(into), [&](int64_t g, float* o) {
    for (int64_t k = 0; k < in; ++k)  // column by column, the group's rows within each
      for (int64_t j = 0; j < G; ++j) *o++ = g * G + j < rows ? W[(g * G + j) * in + k] : 0.0f;
  });
}

PackedRows pack_rows_bf16(const float* W, int64_t rows, int64_t in, Tensor into) {
  constexpr int64_t G = kGroupRows;
  const int64_t in2 = (in + 1) / 2;
  auto half = [&](int64_t r, int64_t k) -> uint32_t { return r < rows && k < in ? to_bf16(W[r * in + k]) : 0u; };
  return pack_rows<uint32_t>(PackedRows::Format::bf16, "pack_rows_bf16", rows, in, std::move(into),
                             [&](int64_t g, uint32_t* o) {
                               for (int64_t k2 = 0; k2 < in2; ++k2)  // column pairs, the group's rows within each
                                 for (int64_t j = 0; j < G; ++j)
                                   *o++ = half(g * G + j, 2 * k2) | half(g * G + j, 2 * k2 + 1) << 16;
                             });
}

void gemv_packed(const PackedRows& W, const float* bias, const float* x, float* y, int64_t B, int64_t r0, int64_t r1) {
  LINTRA_CHECK(r0 >= 0 && r0 <= r1 && r1 <= W.rows, "gemv_packed: rows [{}, {}) are not a block of the {} rows", r0,
               r1, W.rows);
  if (r0 == r1 || B == 0) return;  // an empty block (a thread left without rows) anywhere
  LINTRA_CHECK(r0 % PackedRows::kGroup == 0 && (r1 % PackedRows::kGroup == 0 || r1 == W.rows),
               "gemv_packed: rows [{}, {}) of {} must start and end on a group of {} (or end at the last row)", r0,
               r1, W.rows, PackedRows::kGroup);
  kernels::cpu::dispatch_gemv_packed(W, bias, x, y, B, r0, r1);
}

}  // namespace simd
}  // namespace lintra
#endif  // HWY_ONCE
