// test_bucketed_sum.cpp — the buckets of a gradient sum: the tensors' concatenation, in order, cut
// into buckets of at most the bucket size (each full but the last, a large tensor over several, an
// empty one in none); with one process the sum leaves every tensor as it was. Over MPI: test_mpi.cpp.
#include <gtest/gtest.h>

#include "tests/test_util.h"
#include "train/distributed/bucketed_sum.h"

namespace lintra::dist {
namespace {

TEST(TrainDistributedBucketedSum, BucketsCutTheConcatenationInOrder) {
  const std::vector<int64_t> numels{3, 0, 10, 1, 4};
  const std::vector<Bucket> plan = plan_buckets(numels, 4);
  ASSERT_EQ(plan.size(), 5u);  // 18 elements in buckets of 4
  std::vector<int64_t> covered(numels.size());
  int64_t total = 0;
  size_t last_tensor = 0;
  for (size_t b = 0; b < plan.size(); ++b) {
    int64_t in_bucket = 0;
    for (const Segment& s : plan[b]) {
      EXPECT_GE(s.tensor, last_tensor);  // in order
      EXPECT_EQ(s.offset, covered[s.tensor]) << "segment of tensor " << s.tensor;
      EXPECT_GT(s.length, 0);
      covered[s.tensor] += s.length;
      in_bucket += s.length;
      last_tensor = s.tensor;
    }
    EXPECT_EQ(in_bucket, b + 1 < plan.size() ? 4 : 2) << "bucket " << b;
    total += in_bucket;
  }
  EXPECT_EQ(covered, numels);
  EXPECT_EQ(total, 18);
  EXPECT_EQ(plan[0], (Bucket{{0, 0, 3}, {2, 0, 1}}));
  EXPECT_EQ(plan[3], (Bucket{{2, 9, 1}, {3, 0, 1}, {4, 0, 2}}));
  EXPECT_TRUE(plan_buckets({0, 0}, 8).empty());
  EXPECT_EQ(plan_buckets({5}, 100).size(), 1u);
  EXPECT_HAS(testing::error_of([] { plan_buckets({1}, 0); }), "must be positive");
}

TEST(TrainDistributedBucketedSum, OneProcessLeavesTheTensorsAndRejectsOthers) {
  BucketedSum sum(single_process(), 16);
  Tensor a = Tensor::from_vector({1, 2, 3, 4, 5}, {5});
  sum.sum({a});
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 5}));
  EXPECT_HAS(testing::error_of([&] { sum.sum({Tensor::zeros({2}, DType::f64)}); }), "contiguous float32");
  EXPECT_HAS(testing::error_of([&] { sum.sum({Tensor::zeros({2, 3}).transpose(0, 1)}); }), "contiguous float32");
}

}  // namespace
}  // namespace lintra::dist
