// test_copy_task.cpp — copy-task layout, ranges, mask positions and determinism.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "data/copy/copy_task.h"
#include "tests/data/test_util.h"

namespace lintra::data {
namespace {

// n is the position of the first 0 (the separator): symbols are never 0.
int64_t find_n(const Sample& s) {
  for (size_t t = 0; t < s.tokens.size(); ++t)
    if (s.tokens[t] == 0) return int64_t(t);
  return -1;
}

TEST(DataCopyTask, LayoutMaskAndRanges) {
  CopyTaskDataset ds({.size = 5000, .max_length = 128, .num_symbols = 10, .seed = 3});
  EXPECT_EQ(ds.min_n(), 32);
  EXPECT_EQ(ds.max_n(), 62);
  EXPECT_EQ(ds.vocab_size(), 11);
  std::set<int64_t> ns;
  std::map<int64_t, int64_t> symbol_count;
  int64_t total_symbols = 0;
  for (int64_t i = 0; i < ds.size(); ++i) {
    Sample s = ds.get(i);
    ASSERT_EQ(s.tokens.size(), 128u);
    ASSERT_EQ(s.mask.size(), 127u);
    EXPECT_TRUE(s.bytes.empty() && s.features.empty() && s.targets.empty());
    EXPECT_EQ(s.label, -1);
    const int64_t n = find_n(s);
    ASSERT_GE(n, 32);
    ASSERT_LE(n, 62);
    ns.insert(n);
    for (int64_t k = 0; k < n; ++k) {
      ASSERT_GE(s.tokens[size_t(k)], 1);
      ASSERT_LE(s.tokens[size_t(k)], 10);
      ASSERT_EQ(s.tokens[size_t(n + 1 + k)], s.tokens[size_t(k)]);
      ++symbol_count[s.tokens[size_t(k)]];
      ++total_symbols;
    }
    for (int64_t t = 2 * n + 1; t < 128; ++t) ASSERT_EQ(s.tokens[size_t(t)], 0);
    // mask: 1 exactly at target positions n-1 .. 2n-1.
    for (int64_t t = 0; t < 127; ++t) ASSERT_EQ(s.mask[size_t(t)], (t >= n - 1 && t <= 2 * n - 1) ? 1 : 0) << t;
    // With target = x[1:], the masked targets are the separator then the copy of w.
    ASSERT_EQ(s.tokens[size_t(n - 1 + 1)], 0);
    for (int64_t t = n; t <= 2 * n - 1; ++t) ASSERT_EQ(s.tokens[size_t(t + 1)], s.tokens[size_t(t - n)]);
  }
  EXPECT_EQ(ns.size(), 31u) << "every n in 32..62 should appear in 5000 draws";
  ASSERT_EQ(symbol_count.size(), 10u);
  for (auto [symbol, count] : symbol_count) {
    EXPECT_NEAR(double(count) / double(total_symbols), 0.1, 0.01) << "symbol " << symbol;
  }
}

TEST(DataCopyTask, DeterministicPerIndexAndSeed) {
  CopyTaskDataset a({.size = 100, .seed = 7}), b({.size = 100, .seed = 7}), c({.size = 100, .seed = 8});
  // Sample i does not depend on which samples were made before it.
  Sample late = a.get(99);
  for (int64_t i = 0; i < 100; ++i) EXPECT_EQ(a.get(i).tokens, b.get(i).tokens);
  EXPECT_EQ(late.tokens, b.get(99).tokens);
  int differ = 0;
  for (int64_t i = 0; i < 100; ++i) differ += a.get(i).tokens != c.get(i).tokens;
  EXPECT_GT(differ, 95);
  EXPECT_NE(a.get(0).tokens, a.get(1).tokens);
  EXPECT_EQ(a.content_digest(), b.content_digest());
  EXPECT_NE(a.content_digest(), c.content_digest());
  EXPECT_EQ(a.name(), "copy(L=128,symbols=10,seed=7,size=100)");
}

TEST(DataCopyTask, OtherLengthsAndErrors) {
  CopyTaskDataset small({.size = 50, .max_length = 16, .num_symbols = 3, .seed = 1});
  for (int64_t i = 0; i < 50; ++i) {
    Sample s = small.get(i);
    int64_t n = find_n(s);
    ASSERT_GE(n, 4);
    ASSERT_LE(n, 6);  // [16/4, 15/2) = [4, 7)
    for (int64_t k = 0; k < n; ++k) ASSERT_LE(s.tokens[size_t(k)], 3);
  }
  using testing::error_of;
  EXPECT_THAT(error_of([] { CopyTaskDataset({.size = 0}); }), ::testing::HasSubstr("size"));
  EXPECT_THAT(error_of([] { CopyTaskDataset({.size = 1, .max_length = 4}); }), ::testing::HasSubstr("max_length"));
  EXPECT_THAT(error_of([&] { small.get(50); }), ::testing::HasSubstr("out of range"));
}

}  // namespace
}  // namespace lintra::data
