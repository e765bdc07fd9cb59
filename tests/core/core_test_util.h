// core_test_util.h — helpers shared by the core tests: random inputs in several memory layouts
// (contiguous, permuted, sliced with a step, expanded), a closeness assertion against a float64
// reference that reports the worst element, and a way to read a lintra::Error's message.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/test_util.h"

#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "core/ops.h"
#include "core/rng.h"
#include "core/tensor.h"

namespace lintra {
// gtest messages print dtypes by name (found by argument-dependent lookup).
inline std::ostream& operator<<(std::ostream& os, DType t) { return os << dtype_name(t); }
}  // namespace lintra

namespace lintra::testing {

// How a test input is laid out in memory; every kernel must give the same values for each.
enum class Layout { contiguous, permuted, strided, expanded };
inline const std::vector<Layout> kAllLayouts = {Layout::contiguous, Layout::permuted, Layout::strided,
                                                Layout::expanded};
inline const char* layout_name(Layout l) {
  switch (l) {
    case Layout::contiguous: return "contiguous";
    case Layout::permuted: return "permuted";
    case Layout::strided: return "strided";
    case Layout::expanded: return "expanded";
  }
  return "?";
}

// A tensor of `shape` with values uniform in [lo, hi), laid out as `layout`:
//   permuted  — stored with the dims reversed and viewed back with permute (1-d: as strided);
//   strided   — the last dim is every other element of a wider buffer (slice with step 2);
//   expanded  — the first dim of size > 1 is a stride-0 broadcast of a single row.
// A layout that the shape cannot express (0-d, all sizes 1) falls back to contiguous.
inline Tensor make_input(const Shape& shape, DType dtype, Layout layout, Generator& gen, double lo = -1,
                         double hi = 1) {
  const size_t n = shape.size();
  if (layout == Layout::permuted && n < 2) layout = Layout::strided;
  if (n == 0) layout = Layout::contiguous;
  switch (layout) {
    case Layout::contiguous: return Tensor::uniform(shape, gen, lo, hi, dtype);
    case Layout::permuted: {
      Shape rev(shape.rbegin(), shape.rend());
      std::vector<int64_t> perm;
      for (size_t i = n; i-- > 0;) perm.push_back(int64_t(i));
      Tensor t = Tensor::uniform(rev, gen, lo, hi, dtype).permute(perm);
      EXPECT_FALSE(t.is_contiguous() && numel_of(shape) > 1 && shape[0] > 1 && shape[n - 1] > 1);
      return t;
    }
    case Layout::strided: {
      Shape wide = shape;
      wide.back() = 2 * shape.back() + 1;
      return Tensor::uniform(wide, gen, lo, hi, dtype).slice(int64_t(n) - 1, 1, wide.back(), 2);
    }
    case Layout::expanded: {
      Shape one = shape;
      for (size_t i = 0; i < n; ++i) {
        if (one[i] > 1) {
          one[i] = 1;
          return Tensor::uniform(one, gen, lo, hi, dtype).expand(shape);
        }
      }
      return Tensor::uniform(shape, gen, lo, hi, dtype);
    }
  }
  return Tensor();
}

struct Tol {
  double rtol;
  double atol;
};

// Passes when |actual − expected| ≤ atol + rtol·|expected| everywhere (NaN matches NaN, ±inf must
// match exactly); otherwise names the worst element by its multi-index.
inline ::testing::AssertionResult close_to(const Tensor& actual, const Tensor& expected, Tol tol) {
  if (actual.shape() != expected.shape()) {
    return ::testing::AssertionFailure() << "shape " << shape_str(actual.shape()) << " vs expected "
                                         << shape_str(expected.shape());
  }
  std::vector<double> a = actual.to_vector<double>(), e = expected.to_vector<double>();
  double worst = 0;
  size_t worst_i = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    double ratio;
    if (a[i] == e[i]) {
      ratio = 0;
    } else if (std::isnan(e[i]) || std::isnan(a[i])) {
      ratio = std::isnan(e[i]) && std::isnan(a[i]) ? 0 : INFINITY;
    } else if (std::isinf(e[i]) || std::isinf(a[i])) {
      ratio = a[i] == e[i] ? 0 : INFINITY;
    } else {
      ratio = std::abs(a[i] - e[i]) / (tol.atol + tol.rtol * std::abs(e[i]));
    }
    if (!(ratio <= worst)) {
      worst = ratio;
      worst_i = i;
    }
  }
  if (worst <= 1) return ::testing::AssertionSuccess();
  // Multi-index of the worst element.
  std::vector<int64_t> idx(actual.shape().size());
  size_t rem = worst_i;
  for (size_t d = idx.size(); d-- > 0;) {
    idx[d] = int64_t(rem % size_t(actual.shape()[d]));
    rem /= size_t(actual.shape()[d]);
  }
  return ::testing::AssertionFailure() << "at [" << fmt::format("{}", fmt::join(idx, ", ")) << "]: got "
                                       << fmt::format("{:.10g}", a[worst_i]) << ", expected "
                                       << fmt::format("{:.10g}", e[worst_i]) << " (error " << worst
                                       << "× the tolerance rtol " << tol.rtol << ", atol " << tol.atol << ")";
}

// Exact equality of values (integer results: indices, comparisons, copies).
inline ::testing::AssertionResult equal_to(const Tensor& actual, const Tensor& expected) {
  return close_to(actual, expected, {0, 0});
}


inline std::string describe_case(const Shape& s, DType dt, Layout l) {
  return fmt::format("shape {} {} {}", shape_str(s), dt, layout_name(l));
}

}  // namespace lintra::testing
