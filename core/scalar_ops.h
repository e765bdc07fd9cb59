// scalar_ops.h — scalar formulas shared by every kernel that needs them (CPU loops now, CUDA
// kernels later: hence LINTRA_HD). One formula, written once.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#ifdef __CUDACC__
#define LINTRA_HD __host__ __device__
#else
#define LINTRA_HD
#endif

namespace lintra::scalar {

// exp for float32 that the compiler can vectorise (no libm call): Cody–Waite range reduction
// x = n·ln2 + r with n = round(x·log2 e) (the 1.5·2²³ trick rounds to nearest without a libm
// call), |r| ≤ ln2/2, then a degree-6 polynomial for e^r (Cephes coefficients), and 2^n built in
// the exponent bits. Max relative error about 2 ulp; exp(-inf) = 0, NaN stays NaN.
LINTRA_HD inline float exp_f32(float x) {
  constexpr float hi = 88.3762626647949f, lo = -88.3762626647949f;
  x = x > hi ? hi : x;
  x = x < lo ? lo : x;
  constexpr float round_magic = 12582912.0f;  // 1.5·2²³: adding and subtracting it rounds to an integer
  float n = (x * 1.44269504088896341f + round_magic) - round_magic;
  float r = x - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  int32_t e = (int32_t(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &e, sizeof(scale));
  return p * scale;
}

template <typename T> LINTRA_HD inline T exp(T x) { return std::exp(x); }
template <> LINTRA_HD inline float exp<float>(float x) { return exp_f32(x); }

template <typename T> LINTRA_HD inline T sigmoid(T x) { return T(1) / (T(1) + exp<T>(-x)); }
template <typename T> LINTRA_HD inline T relu(T x) { return x > T(0) ? x : T(0); }
// elu(x) = x for x > 0, α(eᵡ − 1) otherwise.
template <typename T> LINTRA_HD inline T elu(T x, T alpha) { return x > T(0) ? x : alpha * (exp<T>(x) - T(1)); }
template <typename T> LINTRA_HD inline T elu_grad(T x, T alpha) { return x > T(0) ? T(1) : alpha * exp<T>(x); }
// gelu(x) = x·Φ(x) with the exact normal CDF Φ(x) = (1 + erf(x/√2))/2 (PyTorch's default), computed
// as erfc(−x/√2)/2, which keeps its relative accuracy in the left tail where 1 + erf cancels.
template <typename T> LINTRA_HD inline T gelu(T x) { return x * T(0.5) * std::erfc(x * T(-0.70710678118654752)); }
template <typename T> LINTRA_HD inline T gelu_grad(T x) {
  T cdf = T(0.5) * std::erfc(x * T(-0.70710678118654752));
  T pdf = std::exp(T(-0.5) * x * x) * T(0.39894228040143268);
  return cdf + x * pdf;
}
// softplus(x) = log(1 + eᵡ), computed stably as max(x, 0) + log1p(e^{−|x|}).
template <typename T> LINTRA_HD inline T softplus(T x) {
  return (x > T(0) ? x : T(0)) + std::log1p(std::exp(-std::abs(x)));
}

}  // namespace lintra::scalar
