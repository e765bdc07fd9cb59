// test_properties.cpp — RapidCheck properties of the tensor core on random shapes and data:
//   broadcasting: broadcast_shapes is symmetric; each result dim is the max of the aligned pair, and
//     it throws exactly when a pair differs with neither size 1; add() of random broadcastable
//     operands in random layouts equals the reference;
//   views: a random permutation + step slice + select of a random tensor addresses exactly the base
//     elements the index arithmetic names, shares storage, and contiguous() copies those values;
//   reductions: Σ over all dims equals Σ of the per-dim sums; sum_to(expand(x)) = x·(copies);
//     mean·count = sum.
// Data is float64 in [−1, 1]; sums of ≤ 625 such terms have a worst-case rounding error of
// 625·2^-53·625 ≈ 4e-11, hence atol 1e-10 where summation order differs; elementwise add is exact.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <numeric>
#include <optional>

#include "core/ops.h"
#include "core/reference/reference.h"
#include "tests/core/core_test_util.h"

namespace lintra {
namespace {

using testing::Layout;
using testing::make_input;

// A shape of `min_dims`…`max_dims` dims with sizes in [1, max_size].
rc::Gen<Shape> gen_shape(int min_dims, int max_dims, int64_t max_size) {
  return rc::gen::mapcat(rc::gen::inRange(min_dims, max_dims + 1), [max_size](int n) {
    return rc::gen::container<Shape>(size_t(n), rc::gen::inRange<int64_t>(1, max_size + 1));
  });
}

Layout gen_layout() {
  return *rc::gen::element(Layout::contiguous, Layout::permuted, Layout::strided, Layout::expanded);
}

// Outcome of broadcast_shapes: the shape, or nothing when it throws.
std::optional<Shape> try_broadcast(const Shape& a, const Shape& b) {
  try {
    return broadcast_shapes(a, b, "test");
  } catch (const Error&) {
    return std::nullopt;
  }
}

RC_GTEST_PROP(CoreProperties, BroadcastShapesIsSymmetric, ()) {
  const Shape a = *gen_shape(0, 4, 3), b = *gen_shape(0, 4, 3);
  RC_ASSERT(try_broadcast(a, b) == try_broadcast(b, a));
}

RC_GTEST_PROP(CoreProperties, BroadcastResultIsMaxOrError, ()) {
  const Shape a = *gen_shape(0, 4, 3), b = *gen_shape(0, 4, 3);
  const size_t n = std::max(a.size(), b.size());
  Shape want(n);
  bool ok = true;
  for (size_t i = 0; i < n; ++i) {  // aligned from the right; missing dims count as 1
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1) ok = false;
    want[i] = std::max(da, db);
  }
  std::optional<Shape> got = try_broadcast(a, b);
  RC_ASSERT(got.has_value() == ok);
  if (ok) RC_ASSERT(*got == want);
}

// A shape that broadcasts to `out`: some dims set to 1, some leading dims dropped.
Shape broadcastable_to(const Shape& out) {
  const size_t drop = *rc::gen::inRange<size_t>(0, out.size() + 1);
  Shape s(out.begin() + long(drop), out.end());
  for (int64_t& d : s)
    if (*rc::gen::arbitrary<bool>()) d = 1;
  return s;
}

RC_GTEST_PROP(CoreProperties, AddOfBroadcastableShapesEqualsReference, ()) {
  const Shape out = *gen_shape(0, 4, 5);
  const Shape sa = broadcastable_to(out), sb = broadcastable_to(out);
  Generator gen(*rc::gen::arbitrary<uint32_t>());
  Tensor a = make_input(sa, DType::f64, gen_layout(), gen), b = make_input(sb, DType::f64, gen_layout(), gen);
  Tensor got = ops::add(a, b);
  RC_ASSERT(got.shape() == broadcast_shapes(sa, sb, "add"));
  RC_ASSERT(ops::max_abs_diff(got, reference::binary(kernels::binary_op<op::Add>, a, b)) == 0.0);
  RC_ASSERT(ops::max_abs_diff(got, ops::add(b, a)) == 0.0);
}

RC_GTEST_PROP(CoreProperties, ViewsAddressTheRightElementsAndEqualTheirCopy, ()) {
  const Shape shape = *gen_shape(1, 4, 5);
  const int64_t n = int64_t(shape.size());
  Tensor base = Tensor::arange(numel_of(shape)).to(DType::f64).reshape(shape);  // value = flat index
  // Random permutation.
  std::vector<int64_t> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  for (int64_t i = n - 1; i > 0; --i) std::swap(perm[size_t(i)], perm[size_t(*rc::gen::inRange<int64_t>(0, i + 1))]);
  Tensor v = base.permute(perm);
  // Random slice (python-style bounds, possibly negative) with a step on a random dim.
  const int64_t sd = *rc::gen::inRange<int64_t>(0, n);
  const int64_t size = v.shape()[size_t(sd)];
  const int64_t start = *rc::gen::inRange<int64_t>(-size, size), step = *rc::gen::inRange<int64_t>(1, 4);
  const int64_t end = *rc::gen::inRange<int64_t>(-size, size + 2);
  v = v.slice(sd, start, end, step);
  int64_t s0 = start < 0 ? start + size : start;
  RC_ASSERT(v.shares_storage_with(base));
  Tensor c = v.contiguous();
  RC_ASSERT(c.is_contiguous());
  RC_ASSERT(c.shape() == v.shape());
  // Every element: view index → permuted index → base index, by hand.
  const std::vector<double> flat = c.to_vector<double>();
  std::vector<int64_t> idx(static_cast<size_t>(n), 0);
  for (size_t k = 0; k < flat.size(); ++k) {
    std::vector<int64_t> b(static_cast<size_t>(n));
    for (int64_t d = 0; d < n; ++d) {
      int64_t i = idx[size_t(d)];
      if (d == sd) i = s0 + i * step;
      b[size_t(perm[size_t(d)])] = i;
    }
    int64_t want = 0;
    for (int64_t d = 0; d < n; ++d) want = want * shape[size_t(d)] + b[size_t(d)];
    RC_ASSERT(v.at(idx) == double(want));
    RC_ASSERT(flat[k] == double(want));
    for (int64_t d = n; d-- > 0;) {  // next row-major index of v
      if (++idx[size_t(d)] < v.shape()[size_t(d)]) break;
      idx[size_t(d)] = 0;
    }
  }
  // select() of the first kept element along dim 0 of the view drops that dim and agrees with at().
  if (v.shape()[0] > 0) {
    Tensor s = v.select(0, -1);
    RC_ASSERT(s.dim() == n - 1);
    RC_ASSERT(ops::max_abs_diff(s, c.narrow(0, v.shape()[0] - 1, 1).reshape(s.shape())) == 0.0);
  }
}

RC_GTEST_PROP(CoreProperties, SumOverAllDimsEqualsSumOfPerDimSums, ()) {
  const Shape shape = *gen_shape(1, 4, 5);
  Generator gen(*rc::gen::arbitrary<uint32_t>());
  Tensor x = make_input(shape, DType::f64, gen_layout(), gen);
  const double total = ops::sum(x).item();
  for (int64_t d = 0; d < int64_t(shape.size()); ++d) RC_ASSERT(std::abs(ops::sum(ops::sum(x, {d})).item() - total) <= 1e-10);
  double by_loop = 0;
  for (double v : x.to_vector<double>()) by_loop += v;
  RC_ASSERT(std::abs(by_loop - total) <= 1e-10);
}

RC_GTEST_PROP(CoreProperties, SumToOfExpandIsScaledInput, ()) {
  // x of shape s; big = (new leading dims) + s with some size-1 dims of s enlarged.
  Shape s = *gen_shape(0, 3, 4);
  for (int64_t& d : s)
    if (*rc::gen::arbitrary<bool>()) d = 1;
  Shape big = *gen_shape(0, 2, 4);
  for (int64_t d : s) big.push_back(d == 1 ? *rc::gen::inRange<int64_t>(1, 5) : d);
  Generator gen(*rc::gen::arbitrary<uint32_t>());
  Tensor x = Tensor::uniform(s, gen, -1, 1, DType::f64);
  const double copies = double(numel_of(big)) / double(numel_of(s));
  Tensor back = ops::sum_to(x.expand(big), s);
  RC_ASSERT(back.shape() == s);
  // Σ of `copies` equal values vs one product: ≤ copies·2^-53 relative.
  RC_ASSERT(ops::allclose(back, ops::mul(x, copies), 1e-12, 1e-14));
}

RC_GTEST_PROP(CoreProperties, MeanTimesCountIsSum, ()) {
  const Shape shape = *gen_shape(1, 4, 5);
  Generator gen(*rc::gen::arbitrary<uint32_t>());
  Tensor x = make_input(shape, DType::f64, gen_layout(), gen);
  ops::Dims dims;
  int64_t count = 1;
  for (int64_t d = 0; d < int64_t(shape.size()); ++d) {
    if (*rc::gen::arbitrary<bool>()) {
      dims.push_back(d - (*rc::gen::arbitrary<bool>() ? int64_t(shape.size()) : 0));  // sometimes negative
      count *= shape[size_t(d)];
    }
  }
  if (dims.empty()) count = numel_of(shape);  // empty dims: all
  const bool keepdim = *rc::gen::arbitrary<bool>();
  Tensor m = ops::mean(x, dims, keepdim), s = ops::sum(x, dims, keepdim);
  RC_ASSERT(m.shape() == s.shape());
  RC_ASSERT(ops::allclose(ops::mul(m, double(count)), s, 1e-12, 1e-13));
}

}  // namespace
}  // namespace lintra
