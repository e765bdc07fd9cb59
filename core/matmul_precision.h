// matmul_precision.h — the precision of lintra's float32 matrix products, one setting for the process
// (as PyTorch's set_float32_matmul_precision):
//   fp32  float32 operands, float32 sums (the default, and the only choice on GPUs for now);
//   bf16  the operands rounded to bfloat16 (nearest even), the products — exact in float32 — summed in
//         float32, with float32 outputs (cpu/matmul_bf16.h: oneDNN's matmul). About twice the multiply
//         rate of float32 on CPUs with bf16 dot products (AVX512_BF16, AMX-BF16); elsewhere oneDNN would
//         emulate them, slower than float32, so asking for bf16 there is an error.
// It applies to the float32 GEMMs that the CPU matmul runs on all its threads at once (cpu/matmul.cpp
// gemm_panels, at least 2^21 multiply-adds): every layer's projections and feed-forward and their
// gradients, and a per-head attention product when one alone exceeds 2^26. The batched per-head products
// below that (one GEMM per thread), batch-1 generation and float64 stay as they are; the optimizer, its
// master weights and every other op keep float32. Opt-in: config `matmul_precision`, `lintra bench train
// --matmul-precision`.
#pragma once

#include <string>

namespace lintra {

enum class MatmulPrecision { fp32, bf16 };

// Empty when bf16 products can run here (lintra built with oneDNN, a CPU with AVX512_BF16 or AMX-BF16),
// else why not.
std::string bf16_matmul_unsupported_reason();
// Throws lintra::Error (with the reason) when bf16 is asked where it cannot run.
void set_matmul_precision(MatmulPrecision p);
MatmulPrecision matmul_precision();
MatmulPrecision parse_matmul_precision(const std::string& text);  // "fp32" or "bf16", else throws
const char* matmul_precision_name(MatmulPrecision p);

}  // namespace lintra
