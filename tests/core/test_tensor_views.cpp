// test_tensor_views.cpp — invariant: views (view/reshape, permute, transpose, squeeze, unsqueeze,
// expand, slice, narrow, select) share storage with their base (writes through a view are visible
// in the base and the other way round), address exactly the elements their definition names, and
// equal the copied versions (contiguous(), clone()); reshape copies only when a view is impossible,
// and view() then fails with a clear error. The inputs are arange tensors, so an element's value is
// its flat index in the base: every check is exact.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/ops.h"
#include "core/tensor.h"
#include "tests/core/core_test_util.h"

namespace lintra {
namespace {

using ::testing::HasSubstr;
using testing::equal_to;
using testing::error_of;

// Values 0, 1, …, numel−1 in row-major order.
Tensor iota(const Shape& shape, DType dtype = DType::f64) {
  return Tensor::arange(numel_of(shape)).to(dtype).reshape(shape);
}

// Flat row-major index of `idx` in a contiguous tensor of `shape`.
int64_t flat(const Shape& shape, const std::vector<int64_t>& idx) {
  int64_t f = 0;
  for (size_t d = 0; d < shape.size(); ++d) f = f * shape[d] + idx[d];
  return f;
}

TEST(CoreViews, ViewInfersMinusOneAndShares) {
  Tensor x = iota({2, 3, 4});
  Tensor v = x.view({4, -1});
  EXPECT_EQ(v.shape(), (Shape{4, 6}));
  EXPECT_TRUE(v.shares_storage_with(x));
  EXPECT_EQ(v.at({1, 0}), 6);
  EXPECT_EQ(v.at({3, 5}), 23);
  Tensor row = v.select(0, 1);
  row.fill_(-1);  // elements 6..11 of the base
  for (int64_t i = 0; i < 24; ++i) EXPECT_EQ(x.reshape({24}).at({i}), (i >= 6 && i < 12) ? -1 : i) << i;
  EXPECT_EQ(x.view({-1}).shape(), (Shape{24}));
  EXPECT_EQ(x.view({2, -1, 2}).shape(), (Shape{2, 6, 2}));
}

TEST(CoreViews, ViewOfNonViewableStridesFailsClearlyAndReshapeCopies) {
  Tensor x = iota({3, 4});
  Tensor t = x.transpose(0, 1);  // (4, 3), strides (1, 4): flattening needs a copy
  std::string msg = error_of([&] { t.view({12}); });
  EXPECT_THAT(msg, HasSubstr("view"));
  EXPECT_THAT(msg, HasSubstr("[4, 3]"));
  EXPECT_THAT(msg, HasSubstr("[12]"));
  EXPECT_THAT(msg, HasSubstr("reshape"));
  Tensor r = t.reshape({12});
  EXPECT_FALSE(r.shares_storage_with(x));
  EXPECT_TRUE(equal_to(r, t.contiguous().view({12})));
  EXPECT_EQ(r.at({1}), 4);  // t[0][1] = x[1][0]
  // Splitting a dim of a transposed tensor is still a view.
  Tensor s = t.view({2, 2, 3});
  EXPECT_TRUE(s.shares_storage_with(x));
  EXPECT_TRUE(equal_to(s, t.contiguous().view({2, 2, 3})));
}

TEST(CoreViews, ReshapeOfScalarAndSizeOneShapes) {
  Tensor s = Tensor::scalar(7, DType::f64);
  EXPECT_EQ(s.reshape({1}).shape(), (Shape{1}));
  EXPECT_EQ(s.view({1, 1}).at({0, 0}), 7);
  EXPECT_TRUE(s.view({1, 1}).shares_storage_with(s));
  EXPECT_EQ(s.reshape({1}).reshape({}).item(), 7);
  Tensor z = Tensor::zeros({0, 3});
  EXPECT_EQ(z.reshape({3, -1, 2}).shape(), (Shape{3, 0, 2}));
}

TEST(CoreViews, PermuteAndTranspose) {
  const Shape shape{3, 5, 7};
  Tensor x = iota(shape);
  Tensor p = x.permute({2, 0, 1});
  EXPECT_EQ(p.shape(), (Shape{7, 3, 5}));
  EXPECT_TRUE(p.shares_storage_with(x));
  EXPECT_FALSE(p.is_contiguous());
  Tensor pc = p.contiguous();
  EXPECT_TRUE(pc.is_contiguous());
  for (int64_t k = 0; k < 7; ++k)
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 5; ++j) {
        ASSERT_EQ(p.at({k, i, j}), flat(shape, {i, j, k}));
        ASSERT_EQ(pc.at({k, i, j}), flat(shape, {i, j, k}));
      }
  Tensor t = x.transpose(-1, 0);
  EXPECT_TRUE(equal_to(t, x.permute({2, 1, 0})));
  EXPECT_TRUE(equal_to(x.permute({-1, -3, -2}), p));
  // Write through the permuted view.
  p.select(0, 6).select(0, 2).fill_(-5);  // x[2][:][6]
  for (int64_t j = 0; j < 5; ++j) EXPECT_EQ(x.at({2, j, 6}), -5);
  EXPECT_EQ(x.at({2, 0, 5}), flat(shape, {2, 0, 5}));
}

TEST(CoreViews, SqueezeUnsqueeze) {
  Tensor x = iota({3, 1, 5});
  Tensor s = x.squeeze(1);
  EXPECT_EQ(s.shape(), (Shape{3, 5}));
  EXPECT_TRUE(s.shares_storage_with(x));
  EXPECT_TRUE(equal_to(s, x.reshape({3, 5})));
  EXPECT_EQ(x.squeeze(-2).shape(), (Shape{3, 5}));
  for (int64_t d = -3; d <= 2; ++d) {
    Tensor u = s.unsqueeze(d);
    Shape expect{3, 5};
    expect.insert(expect.begin() + (d < 0 ? d + 3 : d), 1);
    EXPECT_EQ(u.shape(), expect) << d;
    EXPECT_TRUE(u.shares_storage_with(x));
    EXPECT_TRUE(equal_to(u.contiguous().reshape({15}), s.reshape({15}))) << d;
    EXPECT_TRUE(equal_to(u.squeeze(d), s)) << d;
  }
  EXPECT_THAT(error_of([&] { x.squeeze(0); }), HasSubstr("squeeze"));
  // unsqueeze of a non-contiguous tensor keeps it a view.
  Tensor t = s.transpose(0, 1).unsqueeze(1);
  EXPECT_EQ(t.shape(), (Shape{5, 1, 3}));
  EXPECT_TRUE(equal_to(t.squeeze(1), s.transpose(0, 1).contiguous()));
}

TEST(CoreViews, ExpandRepeatsWithStrideZero) {
  Tensor x = iota({3, 1});
  Tensor e = x.expand({2, 3, 4});
  EXPECT_EQ(e.shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(e.strides()[0], 0);
  EXPECT_EQ(e.strides()[2], 0);
  EXPECT_TRUE(e.shares_storage_with(x));
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 4; ++j) ASSERT_EQ(e.at({b, i, j}), i);
  EXPECT_EQ(x.expand({-1, 6}).shape(), (Shape{3, 6}));
  // A write to the base is seen by every repeat.
  x.select(0, 1).fill_(42);
  EXPECT_EQ(e.at({1, 1, 3}), 42);
  Tensor c = e.contiguous();
  EXPECT_FALSE(c.shares_storage_with(x));
  EXPECT_EQ(c.at({0, 1, 0}), 42);
  EXPECT_THAT(error_of([&] { x.expand({4, 2}); }), HasSubstr("expand"));
}

TEST(CoreViews, SliceWithStepsAndNegativeBounds) {
  Tensor x = iota({10});
  auto values = [](const Tensor& t) { return t.to_vector<double>(); };
  EXPECT_EQ(values(x.slice(0, -7, -1, 2)), (std::vector<double>{3, 5, 7}));
  EXPECT_EQ(values(x.slice(0, 1, 100, 3)), (std::vector<double>{1, 4, 7}));
  EXPECT_EQ(values(x.slice(0, -100, 2)), (std::vector<double>{0, 1}));
  EXPECT_EQ(x.slice(0, 8, 2).numel(), 0);
  EXPECT_EQ(values(x.slice(0, 9, 10, 5)), (std::vector<double>{9}));

  const Shape shape{3, 5, 7};
  Tensor y = iota(shape);
  Tensor s = y.slice(2, 1, 7, 3).slice(1, -4, 5, 2);  // dim 2: {1, 4}; dim 1: {1, 3}
  EXPECT_EQ(s.shape(), (Shape{3, 2, 2}));
  EXPECT_TRUE(s.shares_storage_with(y));
  const int64_t js[] = {1, 3}, ks[] = {1, 4};
  Tensor sc = s.contiguous();
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 2; ++j)
      for (int64_t k = 0; k < 2; ++k) {
        ASSERT_EQ(s.at({i, j, k}), flat(shape, {i, js[j], ks[k]}));
        ASSERT_EQ(sc.at({i, j, k}), flat(shape, {i, js[j], ks[k]}));
      }
  s.fill_(-1);
  EXPECT_EQ(y.at({2, 3, 4}), -1);
  EXPECT_EQ(y.at({2, 3, 3}), flat(shape, {2, 3, 3}));
  EXPECT_THAT(error_of([&] { y.slice(0, 0, 3, 0); }), HasSubstr("step"));
}

TEST(CoreViews, NarrowAndSelect) {
  const Shape shape{3, 5, 7};
  Tensor x = iota(shape);
  Tensor n = x.narrow(1, 2, 3);
  EXPECT_EQ(n.shape(), (Shape{3, 3, 7}));
  EXPECT_TRUE(equal_to(n, x.slice(1, 2, 5)));
  EXPECT_TRUE(n.shares_storage_with(x));
  EXPECT_THAT(error_of([&] { x.narrow(1, 3, 3); }), HasSubstr("narrow"));

  Tensor s = x.select(2, -1);
  EXPECT_EQ(s.shape(), (Shape{3, 5}));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 5; ++j) ASSERT_EQ(s.at({i, j}), flat(shape, {i, j, 6}));
  EXPECT_TRUE(equal_to(x.select(0, 1), x.narrow(0, 1, 1).squeeze(0)));
  x.select(1, 4).select(0, 0).fill_(100);  // x[0][4][:]
  EXPECT_EQ(n.at({0, 2, 3}), 100);
  EXPECT_THAT(error_of([&] { x.select(0, 3); }), HasSubstr("select"));
}

TEST(CoreViews, ChainedViewsEqualTheCopiedVersion) {
  const Shape shape{4, 5, 6};
  Tensor x = iota(shape);
  // permute → slice with step → select → unsqueeze → expand, all views.
  Tensor v = x.permute({2, 0, 1}).slice(0, 1, 6, 2).select(2, 3).unsqueeze(0).expand({2, 3, 4});
  EXPECT_TRUE(v.shares_storage_with(x));
  Tensor c = v.contiguous();
  Tensor cl = v.clone();
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t a = 0; a < 3; ++a)
      for (int64_t b = 0; b < 4; ++b) {
        double want = double(flat(shape, {b, 3, 1 + 2 * a}));
        ASSERT_EQ(v.at({r, a, b}), want);
        ASSERT_EQ(c.at({r, a, b}), want);
      }
  EXPECT_TRUE(equal_to(cl, c));
  EXPECT_FALSE(cl.shares_storage_with(x));
}

TEST(CoreViews, ContiguousCloneAndTo) {
  Tensor x = iota({3, 4});
  EXPECT_TRUE(x.contiguous().shares_storage_with(x));  // already contiguous: no copy
  Tensor c = x.clone();
  EXPECT_FALSE(c.shares_storage_with(x));
  c.fill_(0);
  EXPECT_EQ(x.at({2, 3}), 11);  // the clone owns its data

  Tensor t = x.transpose(0, 1);
  Tensor tc = t.contiguous();
  EXPECT_FALSE(tc.shares_storage_with(x));
  EXPECT_TRUE(tc.is_contiguous());
  EXPECT_TRUE(equal_to(tc, t));

  EXPECT_TRUE(x.to(DType::f64).shares_storage_with(x));  // same dtype: no copy
  Tensor h = Tensor::from_vector(std::vector<double>{-1.5, 0.25, 2.75, 3}, {2, 2});
  Tensor f = h.transpose(0, 1).to(DType::f32);
  EXPECT_EQ(f.dtype(), DType::f32);
  EXPECT_EQ(f.to_vector<float>(), (std::vector<float>{-1.5f, 2.75f, 0.25f, 3.0f}));
  Tensor i = h.to(DType::i64);  // C++ conversion: truncation toward zero
  EXPECT_EQ(i.to_vector<int64_t>(), (std::vector<int64_t>{-1, 0, 2, 3}));
  EXPECT_EQ(i.to(DType::f64).to_vector<double>(), (std::vector<double>{-1, 0, 2, 3}));
  Tensor b = Tensor::from_vector(std::vector<uint8_t>{0, 1, 255}, {3});
  EXPECT_EQ(b.to(DType::f32).to_vector<float>(), (std::vector<float>{0, 1, 255}));
}

TEST(CoreViews, InPlaceWritesBumpTheSharedVersion) {
  Tensor x = iota({3, 4});
  Tensor v = x.transpose(0, 1);
  const uint64_t before = x.version();
  v.select(0, 1).fill_(3);
  EXPECT_GT(x.version(), before);
  EXPECT_EQ(v.version(), x.version());
  const uint64_t mid = x.version();
  x.slice(1, 0, 4, 2).copy_(Tensor::scalar(9, DType::f64));
  EXPECT_GT(v.version(), mid);
  EXPECT_EQ(x.at({2, 2}), 9);
  EXPECT_EQ(x.at({2, 1}), 3);  // v[1][:] is x[:][1]
  EXPECT_EQ(x.at({2, 3}), 11);
}

}  // namespace
}  // namespace lintra
