// test_loader.cpp — DataLoader: coverage per epoch, seeded order, exact resume, prefetch
// equivalence, padding and lengths, bucketing, errors and clean shutdown.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <set>

#include "core/error.h"
#include "core/rng.h"
#include "data/loader.h"
#include "tests/data/test_util.h"

namespace lintra::data {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::error_of;

// Sample i: tokens of length 1 + i % 7, every token = i; label i % 10; mask of length i % 3.
class VarLenDataset : public Dataset {
 public:
  explicit VarLenDataset(int64_t n, int64_t fail_at = -1) : n_(n), fail_at_(fail_at) {}
  int64_t size() const override { return n_; }
  Sample get(int64_t i) const override {
    check_index(i);
    LINTRA_CHECK(i != fail_at_, "VarLenDataset: sample {} is unreadable", i);
    Sample s;
    s.tokens.assign(size_t(1 + i % 7), i);
    s.label = i % 10;
    s.mask.assign(size_t(i % 3), 1);
    return s;
  }
  std::string name() const override { return "varlen"; }
  int64_t length(int64_t i) const override { return 1 + i % 7; }

 private:
  int64_t n_, fail_at_;
};

// Speech-like: sample i has 1 + i % 5 frames of 3 features (value 100·i + 10·t + f), targets 0..i%4.
class FeatureDataset : public Dataset {
 public:
  int64_t size() const override { return 10; }
  Sample get(int64_t i) const override {
    Sample s;
    s.feature_dim = 3;
    for (int64_t t = 0; t < 1 + i % 5; ++t)
      for (int64_t f = 0; f < 3; ++f) s.features.push_back(float(100 * i + 10 * t + f));
    for (int64_t k = 0; k <= i % 4; ++k) s.targets.push_back(k + 1);
    return s;
  }
  std::string name() const override { return "features"; }
};

class EmptyDataset : public Dataset {
 public:
  int64_t size() const override { return 0; }
  Sample get(int64_t) const override { return {}; }
  std::string name() const override { return "empty"; }
};

std::vector<Batch> take(DataLoader& loader, int64_t count) {
  std::vector<Batch> out;
  for (int64_t k = 0; k < count; ++k) out.push_back(loader.next());
  return out;
}

template <typename T> void expect_same_tensor(const Tensor& a, const Tensor& b, size_t k) {
  ASSERT_EQ(a.defined(), b.defined()) << "batch " << k;
  if (!a.defined()) return;
  EXPECT_EQ(a.shape(), b.shape()) << "batch " << k;
  EXPECT_EQ(a.to_vector<T>(), b.to_vector<T>()) << "batch " << k;
}

void expect_same_batches(const std::vector<Batch>& a, const std::vector<Batch>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].position, b[k].position) << k;
    EXPECT_EQ(a[k].indices, b[k].indices) << k;
    expect_same_tensor<int64_t>(a[k].inputs, b[k].inputs, k);
    expect_same_tensor<int64_t>(a[k].lengths, b[k].lengths, k);
    expect_same_tensor<int64_t>(a[k].labels, b[k].labels, k);
    expect_same_tensor<uint8_t>(a[k].mask, b[k].mask, k);
  }
}

std::vector<int64_t> epoch_order(DataLoader& loader) {
  std::vector<int64_t> order;
  for (int64_t k = 0; k < loader.batches_per_epoch(); ++k) {
    Batch b = loader.next();
    order.insert(order.end(), b.indices.begin(), b.indices.end());
  }
  return order;
}

TEST(DataLoader, EverySampleOncePerEpoch) {
  VarLenDataset ds(103);
  for (int64_t prefetch : {0, 3}) {
    DataLoader loader(ds, {.batch_size = 10, .seed = 5, .prefetch = prefetch});
    ASSERT_EQ(loader.batches_per_epoch(), 11);
    for (int epoch = 0; epoch < 3; ++epoch) {
      EXPECT_EQ(loader.position(), (LoaderPosition{epoch, 0}));
      std::vector<int64_t> order;
      for (int64_t k = 0; k < 11; ++k) {
        Batch b = loader.next();
        EXPECT_EQ(b.position, (LoaderPosition{epoch, k}));
        EXPECT_EQ(b.size(), k < 10 ? 10 : 3);
        order.insert(order.end(), b.indices.begin(), b.indices.end());
      }
      std::sort(order.begin(), order.end());
      for (int64_t i = 0; i < 103; ++i) ASSERT_EQ(order[size_t(i)], i);
    }
  }
}

TEST(DataLoader, SeededShuffle) {
  VarLenDataset ds(200);
  DataLoader a(ds, {.batch_size = 16, .seed = 1}), b(ds, {.batch_size = 16, .seed = 1}),
      c(ds, {.batch_size = 16, .seed = 2});
  std::vector<int64_t> a0 = epoch_order(a), a1 = epoch_order(a), b0 = epoch_order(b), c0 = epoch_order(c);
  EXPECT_EQ(a0, b0);
  EXPECT_NE(a0, a1);
  EXPECT_NE(a0, c0);
  std::vector<int64_t> identity(200);
  for (int64_t i = 0; i < 200; ++i) identity[size_t(i)] = i;
  EXPECT_NE(a0, identity);
  // The documented permutation: Generator(seed, stream = epoch).randperm(n).
  EXPECT_EQ(a1, Generator(1, 1).randperm(200));
  DataLoader plain(ds, {.batch_size = 16, .shuffle = false});
  EXPECT_EQ(epoch_order(plain), identity);
  EXPECT_EQ(epoch_order(plain), identity);
}

TEST(DataLoader, ResumeMidEpochMatchesUninterruptedRun) {
  VarLenDataset ds(57);
  for (int64_t prefetch : {0, 2}) {
    LoaderOptions opt{.batch_size = 8, .seed = 11, .prefetch = prefetch};
    DataLoader full(ds, opt);
    std::vector<Batch> expected = take(full, 3 * full.batches_per_epoch());  // 3 epochs of 8 batches

    LoaderPosition saved;
    std::vector<Batch> got;
    {
      DataLoader first(ds, opt);
      got = take(first, 11);  // into epoch 1
      saved = first.position();
      EXPECT_EQ(saved, (LoaderPosition{1, 3}));
    }  // the "killed" run: destroyed with batches prefetched and unconsumed
    DataLoader resumed(ds, opt);
    resumed.seek(saved);
    EXPECT_EQ(resumed.position(), saved);
    std::vector<Batch> rest = take(resumed, 24 - 11);
    got.insert(got.end(), rest.begin(), rest.end());
    expect_same_batches(got, expected);
  }
}

TEST(DataLoader, PrefetchOnAndOffGiveIdenticalBatches) {
  VarLenDataset ds(45);
  DataLoader sync(ds, {.batch_size = 4, .seed = 9, .prefetch = 0});
  DataLoader async(ds, {.batch_size = 4, .seed = 9, .prefetch = 4});
  expect_same_batches(take(sync, 40), take(async, 40));
  // Seeking back and forth restarts the prefetch thread at the right place.
  for (LoaderPosition p : {LoaderPosition{0, 5}, LoaderPosition{2, 0}, LoaderPosition{1, 11}}) {
    sync.seek(p);
    async.seek(p);
    expect_same_batches(take(sync, 7), take(async, 7));
  }
}

TEST(DataLoader, PaddingAndLengthsForTokens) {
  VarLenDataset ds(6);
  DataLoader loader(ds, {.batch_size = 6, .shuffle = false, .pad_value = -1});
  Batch b = loader.next();
  ASSERT_EQ(b.inputs.shape(), (Shape{6, 6}));
  EXPECT_EQ(b.inputs.dtype(), DType::i64);
  EXPECT_EQ(b.lengths.to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
  std::vector<int64_t> in = b.inputs.to_vector<int64_t>();
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t t = 0; t < 6; ++t) EXPECT_EQ(in[size_t(6 * i + t)], t <= i ? i : -1) << i << "," << t;
  EXPECT_EQ(b.labels.to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  ASSERT_EQ(b.mask.shape(), (Shape{6, 2}));
  EXPECT_EQ(b.mask.to_vector<uint8_t>(), (std::vector<uint8_t>{0, 0, 1, 0, 1, 1, 0, 0, 1, 0, 1, 1}));
  EXPECT_FALSE(b.features.defined());
  EXPECT_FALSE(b.targets.defined());
}

TEST(DataLoader, PaddingAndLengthsForFeaturesAndTargets) {
  FeatureDataset ds;
  DataLoader loader(ds, {.batch_size = 5, .shuffle = false, .pad_value = 0, .prefetch = 1});
  Batch b = loader.next();  // samples 0..4: 1..5 frames, 1,2,3,4,1 targets
  EXPECT_FALSE(b.inputs.defined());
  EXPECT_FALSE(b.labels.defined());
  ASSERT_EQ(b.features.shape(), (Shape{5, 5, 3}));
  EXPECT_EQ(b.features.dtype(), DType::f32);
  EXPECT_EQ(b.lengths.to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 3, 4, 5}));
  std::vector<float> f = b.features.to_vector<float>();
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t t = 0; t < 5; ++t)
      for (int64_t k = 0; k < 3; ++k)
        EXPECT_EQ(f[size_t((i * 5 + t) * 3 + k)], t <= i ? float(100 * i + 10 * t + k) : 0.0f);
  ASSERT_EQ(b.targets.shape(), (Shape{5, 4}));
  EXPECT_EQ(b.target_lengths.to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 3, 4, 1}));
  EXPECT_EQ(b.targets.to_vector<int64_t>(),
            (std::vector<int64_t>{1, 0, 0, 0, 1, 2, 0, 0, 1, 2, 3, 0, 1, 2, 3, 4, 1, 0, 0, 0}));
}

TEST(DataLoader, BytesWidenToInt64) {
  class Bytes : public Dataset {
   public:
    int64_t size() const override { return 2; }
    Sample get(int64_t i) const override {
      Sample s;
      s.bytes = {uint8_t(250 + i), 0, 7};
      s.label = i;
      return s;
    }
    std::string name() const override { return "bytes"; }
  } ds;
  DataLoader loader(ds, {.batch_size = 2, .shuffle = false, .prefetch = 0});
  Batch b = loader.next();
  EXPECT_EQ(b.inputs.to_vector<int64_t>(), (std::vector<int64_t>{250, 0, 7, 251, 0, 7}));
}

TEST(DataLoader, DropLast) {
  VarLenDataset ds(103);
  DataLoader loader(ds, {.batch_size = 10, .seed = 3, .drop_last = true});
  ASSERT_EQ(loader.batches_per_epoch(), 10);
  std::set<int64_t> seen;
  for (int64_t k = 0; k < 10; ++k) {
    Batch b = loader.next();
    ASSERT_EQ(b.size(), 10);
    seen.insert(b.indices.begin(), b.indices.end());
  }
  EXPECT_EQ(seen.size(), 100u);
  EXPECT_EQ(loader.position(), (LoaderPosition{1, 0}));
}

// The mean over an epoch of (longest - shortest) in a batch, and the epoch's order.
std::pair<double, std::vector<int64_t>> spread_and_order(DataLoader& loader) {
  int64_t spread = 0;
  std::vector<int64_t> order;
  for (int64_t k = 0; k < loader.batches_per_epoch(); ++k) {
    Batch b = loader.next();
    std::vector<int64_t> len = b.lengths.to_vector<int64_t>();
    spread += *std::max_element(len.begin(), len.end()) - *std::min_element(len.begin(), len.end());
    order.insert(order.end(), b.indices.begin(), b.indices.end());
  }
  return {double(spread) / double(loader.batches_per_epoch()), order};
}

TEST(DataLoader, BucketingKeepsThePermutationAndGroupsLengths) {
  VarLenDataset ds(700);  // lengths 1..7
  LoaderOptions opt{.batch_size = 10, .seed = 4, .bucket_by_length = true, .bucket_window = 7};
  DataLoader loader(ds, opt);
  auto [spread, order] = spread_and_order(loader);
  std::vector<int64_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < 700; ++i) ASSERT_EQ(sorted[size_t(i)], i);
  DataLoader unbucketed(ds, {.batch_size = 10, .seed = 4});
  double plain_spread = spread_and_order(unbucketed).first;
  EXPECT_GT(plain_spread, 4.0);  // a random batch of 10 spans most of the 7 lengths
  EXPECT_LT(spread, 1.5);        // a bucketed one spans one or two neighbouring lengths
  DataLoader again(ds, opt);
  EXPECT_EQ(epoch_order(again), order);
  EXPECT_NE(epoch_order(again), order);  // epoch 1 differs
}

TEST(DataLoader, Errors) {
  VarLenDataset ds(5);
  EmptyDataset empty;
  EXPECT_THAT(error_of([&] { DataLoader(empty, {}); }), AllOf(HasSubstr("empty"), HasSubstr("'empty'")));
  EXPECT_THAT(error_of([&] { DataLoader(ds, {.batch_size = 0}); }), HasSubstr("batch_size must be positive"));
  EXPECT_THAT(error_of([&] { DataLoader(ds, {.batch_size = 6, .drop_last = true}); }),
              AllOf(HasSubstr("batch_size 6"), HasSubstr("5 samples")));
  EXPECT_THAT(error_of([&] { DataLoader(ds, {.prefetch = -1}); }), HasSubstr("prefetch"));
  DataLoader whole(ds, {.batch_size = 6});  // allowed without drop_last: one batch of all five
  EXPECT_EQ(whole.batches_per_epoch(), 1);
  EXPECT_EQ(whole.next().size(), 5);
  EXPECT_THAT(error_of([&] { whole.seek({0, 2}); }), HasSubstr("out of range"));
  EXPECT_THAT(error_of([&] { whole.seek({-1, 0}); }), HasSubstr("out of range"));
  whole.seek({3, 1});  // the end of epoch 3 is the start of epoch 4
  EXPECT_EQ(whole.position(), (LoaderPosition{4, 0}));
}

TEST(DataLoader, DatasetErrorsReachTheCaller) {
  VarLenDataset ds(40, /*fail_at=*/17);
  for (int64_t prefetch : {0, 3}) {
    DataLoader loader(ds, {.batch_size = 4, .shuffle = false, .prefetch = prefetch});
    for (int k = 0; k < 4; ++k) loader.next();
    EXPECT_THAT(error_of([&] { loader.next(); }), HasSubstr("sample 17 is unreadable"));
    EXPECT_EQ(loader.position(), (LoaderPosition{0, 4}));  // unchanged: the failed batch is retried
    loader.seek({0, 5});
    EXPECT_EQ(loader.next().indices, (std::vector<int64_t>{20, 21, 22, 23}));
  }
}

TEST(DataLoader, ShutsDownCleanlyInEveryState) {
  VarLenDataset ds(1000);
  { DataLoader never_used(ds, {.prefetch = 4}); }
  { DataLoader one(ds, {.batch_size = 3, .prefetch = 4}); one.next(); }  // destroyed with a full queue
  for (int k = 0; k < 20; ++k) {  // seek while the worker is busy
    DataLoader loader(ds, {.batch_size = 2, .seed = uint64_t(k), .prefetch = 1 + k % 3});
    loader.next();
    loader.seek({k, k});
    EXPECT_EQ(loader.next().position, (LoaderPosition{k, k}));
  }
}

TEST(DataLoader, CollateRejectsMixedSamples) {
  Sample a, b;
  a.tokens = {1, 2};
  b.bytes = {1};
  EXPECT_THAT(error_of([&] { collate({a, b}, 0); }), HasSubstr("sample 1 of the batch has bytes input"));
  b = a;
  b.label = 3;
  EXPECT_THAT(error_of([&] { collate({a, b}, 0); }), HasSubstr("label"));
  Sample none;
  EXPECT_THAT(error_of([&] { collate({none}, 0); }), HasSubstr("exactly one input"));
}

}  // namespace
}  // namespace lintra::data
