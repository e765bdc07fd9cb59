// gcc_compat.h — force-included (-include) into every file of the fuzz build (LINTRA_FUZZ, clang)
// and nowhere else: the GCC extensions lintra's sources use that clang 14 lacks, written with what
// clang has. Speed does not matter here (no fuzz target runs those kernels for long).
//   __builtin_shuffle(a, b, mask) (GCC's two-vector shuffle with a mask vector, core/cpu/): element i
//   of the result is element mask[i] mod 2n of the concatenation of a and b (n lanes each).
#pragma once

#if defined(__clang__) && !defined(__builtin_shuffle)
template <typename V, typename M>
inline V lintra_gcc_builtin_shuffle(V a, V b, M mask) {
  constexpr int n = int(sizeof(V) / sizeof(a[0]));
  V r;
  for (int i = 0; i < n; ++i) {
    const int k = int(mask[i]) & (2 * n - 1);  // n is a power of two, as GCC requires
    r[i] = k < n ? a[k] : b[k - n];
  }
  return r;
}
#define __builtin_shuffle(a, b, mask) lintra_gcc_builtin_shuffle(a, b, mask)
#endif
