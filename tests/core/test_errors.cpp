// test_errors.cpp — invariant: bad input to the tensor core throws lintra::Error (never crashes or
// returns garbage) and the message names the op and the shapes involved (and the offending value),
// so that a user can find the mistake from the message alone.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/kernels.h"
#include "core/ops.h"
#include "core/tensor.h"
#include "tests/core/core_test_util.h"

namespace lintra {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::error_of;

Tensor f32(const Shape& s) { return Tensor::zeros(s, DType::f32); }

TEST(CoreErrors, MismatchedShapesInBinaryOps) {
  std::string msg = error_of([] { ops::add(f32({3, 4}), f32({5})); });
  EXPECT_THAT(msg, AllOf(HasSubstr("add"), HasSubstr("[3, 4]"), HasSubstr("[5]")));
  msg = error_of([] { ops::mul(f32({2, 3, 4}), f32({3, 1, 2})); });
  EXPECT_THAT(msg, AllOf(HasSubstr("mul"), HasSubstr("[2, 3, 4]"), HasSubstr("[3, 1, 2]")));
  msg = error_of([] { ops::where(ops::gt(f32({2, 3}), f32({})), f32({4}), f32({})); });
  EXPECT_THAT(msg, AllOf(HasSubstr("where"), HasSubstr("[2, 3]"), HasSubstr("[4]")));
}

TEST(CoreErrors, DtypeMismatch) {
  std::string msg = error_of([] { ops::add(f32({2, 3}), Tensor::zeros({2, 3}, DType::f64)); });
  EXPECT_THAT(msg, AllOf(HasSubstr("add"), HasSubstr("float32"), HasSubstr("float64"), HasSubstr("[2, 3]")));
  msg = error_of([] { ops::matmul(f32({2, 3}), Tensor::zeros({3, 2}, DType::f64)); });
  EXPECT_THAT(msg, AllOf(HasSubstr("matmul"), HasSubstr("float32"), HasSubstr("float64")));
  msg = error_of([] { ops::exp(Tensor::zeros({2}, DType::i64)); });
  EXPECT_THAT(msg, AllOf(HasSubstr("exp"), HasSubstr("int64")));
}

// A CUDA build picks the CUDA table (core/cuda/kernel_table.cpp); a build without CUDA refuses cuda:N.
TEST(CoreErrors, CudaTensorsUseTheCudaTableOrNeedACudaBuild) {
#ifdef LINTRA_WITH_CUDA
  EXPECT_EQ(&kernels::on(Device::cuda(0)), &kernels::cuda_backend::table);
#else
  std::string msg = error_of([] { kernels::on(Device::cuda(0)); });
  EXPECT_THAT(msg, AllOf(HasSubstr("kernel list"), HasSubstr("built without CUDA"), HasSubstr("cuda:0")));
#endif
  EXPECT_EQ(&kernels::on(Device::cpu), &kernels::cpu::table);
  EXPECT_EQ(&kernels::on(Device::strict()), &kernels::strict::table);
}

TEST(CoreErrors, OutOfRangeDims) {
  Tensor x = f32({3, 4});
  std::string msg = error_of([&] { x.permute({0, 2}); });
  EXPECT_THAT(msg, AllOf(HasSubstr("permute"), HasSubstr("dim 2"), HasSubstr("[3, 4]")));
  msg = error_of([&] { x.permute({0}); });
  EXPECT_THAT(msg, AllOf(HasSubstr("permute"), HasSubstr("[3, 4]")));
  msg = error_of([&] { x.permute({1, 1}); });
  EXPECT_THAT(msg, AllOf(HasSubstr("permute"), HasSubstr("repeated")));
  msg = error_of([&] { ops::sum(x, {2}); });
  EXPECT_THAT(msg, AllOf(HasSubstr("sum"), HasSubstr("dim 2"), HasSubstr("[3, 4]")));
  msg = error_of([&] { ops::sum(x, {-3}); });
  EXPECT_THAT(msg, AllOf(HasSubstr("sum"), HasSubstr("dim -3"), HasSubstr("[3, 4]")));
  msg = error_of([&] { x.transpose(0, 5); });
  EXPECT_THAT(msg, AllOf(HasSubstr("transpose"), HasSubstr("dim 5"), HasSubstr("[3, 4]")));
  msg = error_of([&] { ops::softmax(x, 2); });
  EXPECT_THAT(msg, AllOf(HasSubstr("softmax"), HasSubstr("[3, 4]")));
  msg = error_of([&] { ops::amax(x, {0, 0}); });
  EXPECT_THAT(msg, AllOf(HasSubstr("amax"), HasSubstr("repeated")));
}

TEST(CoreErrors, OutOfRangeIndices) {
  Tensor x = f32({3, 5});
  Tensor bad = Tensor::from_vector(std::vector<int64_t>{0, 4, 5}, {3});
  std::string msg = error_of([&] { ops::index_select(x, 1, bad); });
  EXPECT_THAT(msg, AllOf(HasSubstr("index_select"), HasSubstr("index 5"), HasSubstr("size 5"), HasSubstr("[3, 5]")));
  msg = error_of([&] { ops::gather(x, 1, Tensor::from_vector(std::vector<int64_t>{1, -1}, {1, 2})); });
  EXPECT_THAT(msg, AllOf(HasSubstr("gather"), HasSubstr("index -1"), HasSubstr("[3, 5]")));
  msg = error_of([&] { ops::gather(x, 1, Tensor::zeros({4, 2}, DType::i64)); });  // dim 0: 4 > 3
  EXPECT_THAT(msg, AllOf(HasSubstr("gather"), HasSubstr("[4, 2]"), HasSubstr("[3, 5]")));
  msg = error_of([&] { ops::index_select(x, 0, Tensor::zeros({2}, DType::f32)); });
  EXPECT_THAT(msg, AllOf(HasSubstr("index_select"), HasSubstr("int64")));
  msg = error_of([&] { ops::scatter_add(x, 0, Tensor::full({1, 5}, 3, DType::i64), f32({1, 5})); });
  EXPECT_THAT(msg, AllOf(HasSubstr("scatter_add"), HasSubstr("index 3"), HasSubstr("[3, 5]")));
  msg = error_of([&] { ops::embedding(f32({10, 4}), Tensor::full({2}, 10, DType::i64)); });
  EXPECT_THAT(msg, AllOf(HasSubstr("index 10"), HasSubstr("[10, 4]")));
}

TEST(CoreErrors, MatmulOfIncompatibleShapes) {
  std::string msg = error_of([] { ops::matmul(f32({3, 4}), f32({5, 6})); });
  EXPECT_THAT(msg, AllOf(HasSubstr("matmul"), HasSubstr("[3, 4]"), HasSubstr("[5, 6]")));
  msg = error_of([] { ops::matmul(f32({2, 3, 4}), f32({3, 4, 6})); });
  EXPECT_THAT(msg, AllOf(HasSubstr("matmul"), HasSubstr("[2, 3, 4]"), HasSubstr("[3, 4, 6]")));  // batch dims
  msg = error_of([] { ops::matmul(f32({}), f32({3})); });
  EXPECT_THAT(msg, AllOf(HasSubstr("matmul"), HasSubstr("[]"), HasSubstr("[3]")));
}

TEST(CoreErrors, ReshapeAndViewErrors) {
  Tensor x = f32({2, 3});
  std::string msg = error_of([&] { x.reshape({4}); });
  EXPECT_THAT(msg, AllOf(HasSubstr("reshape"), HasSubstr("[2, 3]"), HasSubstr("[4]")));
  msg = error_of([&] { x.reshape({4, -1}); });
  EXPECT_THAT(msg, AllOf(HasSubstr("reshape"), HasSubstr("[2, 3]"), HasSubstr("[4, -1]")));
  msg = error_of([&] { x.view({-1, -1}); });
  EXPECT_THAT(msg, AllOf(HasSubstr("view"), HasSubstr("-1")));
  msg = error_of([&] { x.expand({3, 3}); });
  EXPECT_THAT(msg, AllOf(HasSubstr("expand"), HasSubstr("[2, 3]"), HasSubstr("[3, 3]")));
  msg = error_of([&] { x.narrow(1, 2, 2); });
  EXPECT_THAT(msg, AllOf(HasSubstr("narrow"), HasSubstr("[2, 3]")));
  msg = error_of([&] { x.item(); });
  EXPECT_THAT(msg, AllOf(HasSubstr("item"), HasSubstr("[2, 3]")));
  msg = error_of([&] { x.copy_(f32({2})); });
  EXPECT_THAT(msg, AllOf(HasSubstr("copy_"), HasSubstr("[2]"), HasSubstr("[2, 3]")));
  msg = error_of([&] { x.copy_(f32({3, 3})); });  // broadcasts with, but not to, the destination
  EXPECT_THAT(msg, AllOf(HasSubstr("copy_"), HasSubstr("[3, 3]"), HasSubstr("[2, 3]")));
  msg = error_of([] { Tensor::from_vector({1.f, 2.f, 3.f}, {2, 2}); });
  EXPECT_THAT(msg, AllOf(HasSubstr("from_vector"), HasSubstr("[2, 2]")));
}

TEST(CoreErrors, ShapeOpsAndNnOps) {
  std::string msg = error_of([] { ops::cat({f32({2, 3}), f32({2, 4})}, 0); });
  EXPECT_THAT(msg, AllOf(HasSubstr("cat"), HasSubstr("[2, 3]"), HasSubstr("[2, 4]")));
  msg = error_of([] { ops::stack({f32({2, 3}), f32({3, 2})}, 0); });
  EXPECT_THAT(msg, AllOf(HasSubstr("stack"), HasSubstr("[2, 3]"), HasSubstr("[3, 2]")));
  msg = error_of([] { ops::split(f32({5, 2}), {2, 2}, 0); });
  EXPECT_THAT(msg, AllOf(HasSubstr("split"), HasSubstr("[5, 2]")));
  msg = error_of([] { ops::layer_norm(f32({3, 4}), f32({3}), f32({4}), 1e-5); });
  EXPECT_THAT(msg, AllOf(HasSubstr("layer_norm"), HasSubstr("[3]"), HasSubstr("[3, 4]")));
  msg = error_of([] { ops::clamp(f32({2}), 1, 0); });
  EXPECT_THAT(msg, HasSubstr("clamp"));
  msg = error_of([] { ops::pad(f32({2}), {1, 1, 1, 1}); });
  EXPECT_THAT(msg, HasSubstr("pad"));
}

TEST(CoreErrors, MessagesSayWhereTheyWereRaised) {
  std::string msg = error_of([] { ops::add(f32({3}), f32({4})); });
  EXPECT_THAT(msg, HasSubstr("(at core/"));
}

}  // namespace
}  // namespace lintra
