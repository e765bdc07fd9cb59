// openblas_core.cpp — lintra's pick of OpenBLAS's kernels for this CPU (openblas_core.h).
#include "core/openblas_core.h"

#include <cpuid.h>

namespace lintra {

namespace {

// AMD family 25 (Zen 3, Zen 4), from CPUID: Zen 4 has AVX-512 but executes each 512-bit operation as
// two 256-bit halves.
bool is_amd_family_25() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) == 0) return false;
  const bool amd = ebx == 0x68747541u && edx == 0x69746e65u && ecx == 0x444d4163u;  // "AuthenticAMD"
  if (!amd || __get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
  const unsigned base = (eax >> 8) & 0xfu, extended = (eax >> 20) & 0xffu;
  return base == 0xfu && base + extended == 25;
}

}  // namespace

const char* openblas_core_for_this_cpu() {
  if (is_amd_family_25() && __builtin_cpu_supports("avx2")) return "Haswell";
  if (__builtin_cpu_supports("avx512bf16")) return "Cooperlake";
  if (__builtin_cpu_supports("avx512f")) return "SkylakeX";
  if (__builtin_cpu_supports("avx2")) return "Haswell";
  return nullptr;
}

}  // namespace lintra
