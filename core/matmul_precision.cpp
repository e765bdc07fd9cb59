#include "core/matmul_precision.h"

#include <atomic>

#include "core/error.h"

namespace lintra {

namespace {
std::atomic<MatmulPrecision> g_precision{MatmulPrecision::fp32};
}  // namespace

std::string bf16_matmul_unsupported_reason() {
#ifndef LINTRA_WITH_DNNL
  return "lintra was built without oneDNN (libdnnl-dev; tools/install-deps.sh installs it)";
#else
  if (!__builtin_cpu_supports("avx512bf16") && !__builtin_cpu_supports("amx-bf16"))
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
