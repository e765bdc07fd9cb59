#include "core/matmul_precision.h"

#include <atomic>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "core/error.h"

namespace lintra {

namespace {
std::atomic<MatmulPrecision> g_precision{MatmulPrecision::fp32};

#ifdef LINTRA_WITH_DNNL
// AMX-BF16 is CPUID leaf 7, sub-leaf 0, EDX bit 22. Read directly: clang 14's
// __builtin_cpu_supports does not know the feature (GCC 12's does), and the fuzz build uses clang.
bool cpu_has_amx_bf16() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  return (edx >> 22) & 1u;
#else
  return false;
#endif
}

bool cpu_has_avx512_bf16() {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_cpu_supports("avx512bf16");
#else
  return false;
#endif
}
#endif  // LINTRA_WITH_DNNL
}  // namespace

std::string bf16_matmul_unsupported_reason() {
#ifndef LINTRA_WITH_DNNL
  return "lintra was built without oneDNN (libdnnl-dev; tools/install-deps.sh installs it)";
#else
  if (!cpu_has_avx512_bf16() && !cpu_has_amx_bf16())
    return "this CPU has neither AVX512_BF16 nor AMX-BF16: bf16 products would be emulated, slower than float32";
  return "";
#endif
}

void set_matmul_precision(MatmulPrecision p) {
  if (p == MatmulPrecision::bf16) {
    const std::string why = bf16_matmul_unsupported_reason();
    LINTRA_CHECK(why.empty(), "matmul precision bf16: {}; use fp32", why);
  }
  g_precision.store(p, std::memory_order_relaxed);
}

MatmulPrecision matmul_precision() { return g_precision.load(std::memory_order_relaxed); }

MatmulPrecision parse_matmul_precision(const std::string& text) {
  if (text == "fp32") return MatmulPrecision::fp32;
  if (text == "bf16") return MatmulPrecision::bf16;
  LINTRA_FAIL("matmul precision '{}': expected 'fp32' or 'bf16'", text);
}

const char* matmul_precision_name(MatmulPrecision p) { return p == MatmulPrecision::bf16 ? "bf16" : "fp32"; }

}  // namespace lintra
