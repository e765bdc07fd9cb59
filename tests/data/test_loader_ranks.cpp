// test_loader_ranks.cpp — DataLoader with rank / world_size (data-parallel training), no MPI needed:
// K ranks of batch B together see exactly the batches of one loader of batch K·B (the same samples,
// in rank order, with and without bucketing and prefetch), every sample once per epoch over all
// ranks, the same position on every rank, exact resume, and the re-sharding of a position saved by
// another number of ranks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "data/loader.h"
#include "tests/data/test_util.h"

namespace lintra::data {
namespace {

using ::testing::HasSubstr;
using testing::error_of;

// Sample i: tokens of length 1 + i % 5, every token = i.
class Numbers : public Dataset {
 public:
  explicit Numbers(int64_t n) : n_(n) {}
  int64_t size() const override { return n_; }
  Sample get(int64_t i) const override {
    check_index(i);
    Sample s;
    s.tokens.assign(size_t(1 + i % 5), i);
    return s;
  }
  std::string name() const override { return "numbers"; }
  int64_t length(int64_t i) const override { return 1 + i % 5; }

 private:
  int64_t n_;
};

LoaderOptions ranked(LoaderOptions o, int64_t rank, int64_t world) {
  o.rank = rank;
  o.world_size = world;
  return o;
}

// Over `epochs` epochs: the K ranks' batches of each step, concatenated in rank order, against the
// batches of one loader of batch K·B.
void expect_ranks_equal_one_big_loader(const Dataset& ds, const LoaderOptions& one_rank, int64_t K, int64_t epochs) {
  LoaderOptions big = one_rank;
  big.batch_size *= K;
  DataLoader whole(ds, big);
  std::vector<std::unique_ptr<DataLoader>> ranks;
  for (int64_t r = 0; r < K; ++r) ranks.push_back(std::make_unique<DataLoader>(ds, ranked(one_rank, r, K)));
  ASSERT_EQ(ranks[0]->batches_per_epoch(), whole.batches_per_epoch());
  for (int64_t step = 0; step < epochs * whole.batches_per_epoch(); ++step) {
    const Batch expected = whole.next();
    std::vector<int64_t> got;
    for (auto& rank : ranks) {
      const Batch b = rank->next();
      EXPECT_EQ(b.position, expected.position) << "step " << step;
      EXPECT_EQ(b.size(), one_rank.batch_size);
      got.insert(got.end(), b.indices.begin(), b.indices.end());
      for (int64_t row = 0; row < b.size(); ++row)  // the rows hold those samples
        EXPECT_EQ(b.inputs.data<int64_t>()[row * b.inputs.shape()[1]], b.indices[size_t(row)]);
    }
    ASSERT_EQ(got, expected.indices) << "step " << step;
  }
}

TEST(DataLoaderRanks, KRanksOfBatchBSeeTheBatchesOfOneRankOfBatchKB) {
  Numbers ds(120);
  for (int64_t K : {1, 2, 3}) {
    SCOPED_TRACE(K);
    expect_ranks_equal_one_big_loader(ds, {.batch_size = 4, .seed = 7, .drop_last = true, .prefetch = 0}, K, 3);
    expect_ranks_equal_one_big_loader(ds, {.batch_size = 5, .seed = 8, .drop_last = true, .prefetch = 2}, K, 2);
    expect_ranks_equal_one_big_loader(
        ds, {.batch_size = 3, .seed = 9, .drop_last = true, .bucket_by_length = true, .bucket_window = 4}, K, 2);
  }
}

TEST(DataLoaderRanks, EverySampleOncePerEpochOverAllRanks) {
  Numbers ds(96);
  const int64_t K = 3;
  for (int64_t epoch = 0; epoch < 2; ++epoch) {
    std::vector<int64_t> seen;
    for (int64_t r = 0; r < K; ++r) {
      DataLoader loader(ds, ranked({.batch_size = 4, .seed = 3, .drop_last = true}, r, K));
      EXPECT_EQ(loader.batches_per_epoch(), 8);  // 96 / (3 × 4)
      for (const auto& batch : loader.epoch_plan(epoch)) seen.insert(seen.end(), batch.begin(), batch.end());
    }
    std::sort(seen.begin(), seen.end());
    ASSERT_EQ(seen.size(), 96u);
    for (int64_t i = 0; i < 96; ++i) EXPECT_EQ(seen[size_t(i)], i);
  }
}

TEST(DataLoaderRanks, ResumeMidEpochIsExactOnEveryRank) {
  Numbers ds(90);
  const LoaderOptions opt = ranked({.batch_size = 3, .seed = 5, .drop_last = true, .prefetch = 2}, 1, 3);
  DataLoader full(ds, opt);
  std::vector<std::vector<int64_t>> expected;
  for (int k = 0; k < 25; ++k) expected.push_back(full.next().indices);
  DataLoader first(ds, opt);
  for (int k = 0; k < 13; ++k) first.next();
  DataLoader resumed(ds, opt);
  resumed.seek(first.position());
  for (int k = 13; k < 25; ++k) EXPECT_EQ(resumed.next().indices, expected[size_t(k)]) << k;
}

TEST(DataLoaderRanks, ReshardContinuesWhereTheSavedSamplesEnd) {
  Numbers ds(100);
  const LoaderOptions B4{.batch_size = 4, .seed = 2, .drop_last = true};
  DataLoader one(ds, B4);                     // global batch 4, 25 batches
  DataLoader two(ds, ranked(B4, 0, 2));        // global batch 8, 12 batches
  // 2 → 1 rank: 7 batches of 8 are 14 batches of 4; the same samples follow.
  Reshard r = one.reshard({0, 7}, 2);
  EXPECT_EQ(r.position, (LoaderPosition{0, 14}));
  EXPECT_EQ(r.done, 56);
  EXPECT_EQ(r.skipped, 0);
  EXPECT_TRUE(r.exact);
  const auto big = two.global_epoch_plan(0), small = one.global_epoch_plan(0);
  EXPECT_EQ(std::vector<int64_t>(big[7].begin(), big[7].begin() + 4), small[14]);
  // 1 → 2 ranks: 5 batches of 4 (20 samples) continue at batch 3 of 8 (24), skipping 4 samples.
  r = two.reshard({1, 5}, 1);
  EXPECT_EQ(r.position, (LoaderPosition{1, 3}));
  EXPECT_EQ(r.skipped, 4);
  // The same world size: the same position.
  EXPECT_EQ(two.reshard({1, 5}, 2).position, (LoaderPosition{1, 5}));
  // Past the last full batch of the new size: the next epoch (the rest is what drop_last drops).
  r = two.reshard({0, 24}, 1);  // 96 samples done; 12 batches of 8 hold 96
  EXPECT_EQ(r.position, (LoaderPosition{1, 0}));
  EXPECT_EQ(r.skipped, 0);
  DataLoader bucketed(ds, ranked({.batch_size = 4, .drop_last = true, .bucket_by_length = true}, 0, 2));
  EXPECT_FALSE(bucketed.reshard({0, 4}, 1).exact);
}

TEST(DataLoaderRanks, Errors) {
  Numbers ds(10);
  EXPECT_THAT(error_of([&] { DataLoader(ds, ranked({.drop_last = true}, 2, 2)); }), HasSubstr("rank 2 of world_size 2"));
  EXPECT_THAT(error_of([&] { DataLoader(ds, ranked({.batch_size = 2}, 0, 2)); }), HasSubstr("need drop_last"));
  EXPECT_THAT(error_of([&] { DataLoader(ds, ranked({.batch_size = 4, .drop_last = true}, 0, 3)); }),
              HasSubstr("the global batch 12 (3 ranks × 4)"));
}

}  // namespace
}  // namespace lintra::data
