// simd.h — which SIMD target the CPU kernels run on. The kernels of core/cpu/ are written once over
// Google Highway and compiled for every x86 target (DESIGN.md §2: SSSE3, SSE4, AVX2, AVX-512 and a
// scalar fallback, in the portable default build and with LINTRA_NATIVE=ON alike:
// HWY_COMPILE_ALL_ATTAINABLE); each call dispatches to the best target the running CPU supports
// (HWY_DYNAMIC_DISPATCH). Benchmarks print simd_target(); tests run each kernel on every target in
// simd_targets() by forcing it (hwy::SetSupportedTargetsForTest).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lintra {

// The target a dispatched kernel runs on now, by Highway's name: "AVX2", "AVX3" (AVX-512), "SSE4", …
std::string simd_target();
// The targets this binary holds code for that this CPU can run, best first (Highway target bits).
std::vector<int64_t> simd_targets();
std::string simd_target_name(int64_t target);
// Makes every dispatched kernel run on the target of this name (one of simd_targets(), e.g. "SSE4"),
// as benchmarks measure each path; "" or "best" restores the best one. Throws lintra::Error otherwise.
void force_simd_target(const std::string& name);

}  // namespace lintra
