// cpu/reduce_simd.cpp — the vector runs of cpu/reduce_simd.h, written once over Highway and compiled for
// every x86 target (SSSE3, SSE4, AVX2, AVX-512; scalar as the fallback); HWY_DYNAMIC_DISPATCH picks the
// best one per call. A run's last partial vector is filled with the op's identity (0, −inf, +inf) and
// goes through the same vector code (cpu/vec_math-inl.h). Cost: n/L vector loads and combines; a run
// reduction ends with one horizontal pass over 4·L lanes.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/cpu/reduce_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "core/cpu/vec_math-inl.h"

#ifndef LINTRA_CORE_CPU_REDUCE_SIMD_ONCE_
#define LINTRA_CORE_CPU_REDUCE_SIMD_ONCE_
#include "core/cpu/reduce_simd.h"
#endif

// --- per-target parts ------------------------------------------------------------------------------
HWY_BEFORE_NAMESPACE();
namespace lintra::kernels::cpu::HWY_NAMESPACE {
namespace {

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

// kOp: 0 sum, 1 max, 2 min — the scalar loop's combine(acc, v), lane by lane (a NaN v wins, a NaN acc stays).
template <int kOp> HWY_INLINE V combine(V acc, V v) {
  if constexpr (kOp == 0) return hn::Add(acc, v);
  else if constexpr (kOp == 1) return hn::IfThenElse(hn::Or(hn::Gt(v, acc), hn::IsNaN(v)), v, acc);
  else return hn::IfThenElse(hn::Or(hn::Lt(v, acc), hn::IsNaN(v)), v, acc);
}

template <int kOp> constexpr float identity() {
  if constexpr (kOp == 0) return 0.0f;
  else if constexpr (kOp == 1) return -std::numeric_limits<float>::infinity();
  else return std::numeric_limits<float>::infinity();
}

template <int kOp> float reduce_run(const float* p, int64_t n) {
  const D d;
  const int64_t L = int64_t(hn::Lanes(d));
  const float id = identity<kOp>();
  V a0 = hn::Set(d, id), a1 = a0, a2 = a0, a3 = a0;  // four chains hide the add / blend latency
  int64_t i = 0;
  for (; i + 4 * L <= n; i += 4 * L) {
    a0 = combine<kOp>(a0, hn::LoadU(d, p + i));
    a1 = combine<kOp>(a1, hn::LoadU(d, p + i + L));
    a2 = combine<kOp>(a2, hn::LoadU(d, p + i + 2 * L));
    a3 = combine<kOp>(a3, hn::LoadU(d, p + i + 3 * L));
  }
  for (; i < n; i += L) a0 = combine<kOp>(a0, load_at(d, p, i, std::min(L, n - i), id));
  const V all = combine<kOp>(combine<kOp>(a0, a1), combine<kOp>(a2, a3));
  if constexpr (kOp == 0) {
    return hn::GetLane(hn::SumOfLanes(d, all));
  } else {
    HWY_ALIGN float lanes[hn::MaxLanes(D())];
    hn::Store(all, d, lanes);
    float acc = lanes[0];
    for (int64_t k = 1; k < L; ++k) {
      const float v = lanes[k];
      if ((kOp == 1 ? v > acc : v < acc) || v != v) acc = v;
    }
    return acc;
  }
}

template <int kOp> void accumulate_row(const float* p, float* acc, int64_t n) {
  const D d;
  const int64_t L = int64_t(hn::Lanes(d));
  for (int64_t i = 0; i < n; i += L) {
    const int64_t m = std::min(L, n - i);
    store_at(d, combine<kOp>(load_at(d, acc, i, m), load_at(d, p, i, m)), acc, i, m);
  }
}

}  // namespace

float ReduceRunF32(int op, const float* p, int64_t n) {
  return op == 0 ? reduce_run<0>(p, n) : op == 1 ? reduce_run<1>(p, n) : reduce_run<2>(p, n);
}

void AccumulateRowF32(int op, const float* p, float* acc, int64_t n) {
  if (op == 0) accumulate_row<0>(p, acc, n);
  else if (op == 1) accumulate_row<1>(p, acc, n);
  else accumulate_row<2>(p, acc, n);
}

}  // namespace lintra::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace lintra::kernels::cpu {

HWY_EXPORT(ReduceRunF32);
HWY_EXPORT(AccumulateRowF32);

namespace {
int code_of(ReduceOp op) { return op == ReduceOp::sum ? 0 : op == ReduceOp::max ? 1 : 2; }
}  // namespace

float reduce_run_simd_f32(ReduceOp op, const float* p, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(ReduceRunF32)(code_of(op), p, n);
}

void accumulate_row_simd_f32(ReduceOp op, const float* p, float* acc, int64_t n) {
  HWY_DYNAMIC_DISPATCH(AccumulateRowF32)(code_of(op), p, acc, n);
}

}  // namespace lintra::kernels::cpu
#endif  // HWY_ONCE
