// test_claims.cpp — the verdict rule of the reproduction tables (experiments/claims.h): a claim holds
// or does not hold only when its margin exceeds the seed spread, and is inconclusive otherwise and
// with one seed; each kind computes its margin as documented.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "experiments/claims.h"
#include "tests/test_util.h"

namespace lintra::experiments {
namespace {

using K = Claim::Kind;
using lintra::testing::error_of;

TEST(ExperimentsClaims, LowerHoldsFailsOrIsInconclusiveByTheSeedSpread) {
  const Claim c{"q", K::lower, "eval_loss", "linear", "lsh-4"};
  // Means 1.0 and 2.0, ranges 0.2 and 0.1: margin 1.0 > spread 0.2.
  Verdict v = judge(c, {{"linear", {0.9, 1.1}}, {"lsh-4", {1.95, 2.05}}});
  EXPECT_EQ(v.word, "holds");
  EXPECT_NEAR(v.margin, 1.0, 1e-12);
  EXPECT_NEAR(v.spread, 0.2, 1e-12);
  EXPECT_EQ(v.seeds, 2);
  // The other way round: margin −1.0 < −spread.
  EXPECT_EQ(judge(c, {{"linear", {1.95, 2.05}}, {"lsh-4", {0.9, 1.1}}}).word, "does not hold");
  // Means 1.0 and 1.1, but seeds that vary by 0.4: inside the noise.
  v = judge(c, {{"linear", {0.8, 1.2}}, {"lsh-4", {1.0, 1.2}}});
  EXPECT_EQ(v.word, "inconclusive at this budget");
  EXPECT_NEAR(v.margin, 0.1, 1e-12);
}

TEST(ExperimentsClaims, OneSeedIsAlwaysInconclusive) {
  const Claim c{"q", K::lower, "eval_loss", "a", "b"};
  const Verdict v = judge(c, {{"a", {1.0}}, {"b", {100.0}}});
  EXPECT_EQ(v.word, "inconclusive at this budget");
  EXPECT_EQ(v.seeds, 1);
  EXPECT_HAS(v.evidence, "one seed per row");
}

TEST(ExperimentsClaims, AMissingValueIsInconclusiveAndSaysSo) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Verdict v = judge({"q", K::lower, "per", "a", "b"}, {{"a", {1.0, nan}}, {"b", {2.0, 2.1}}});
  EXPECT_EQ(v.word, "inconclusive at this budget");
  EXPECT_HAS(v.evidence, "did not report final dev PER");
  EXPECT_HAS(error_of([] { judge({"q", K::lower, "per", "a", "missing"}, {{"a", {1.0}}}); }), "row 'missing'");
}

TEST(ExperimentsClaims, LowestComparesWithEveryOtherRow) {
  const Claim c{"q", K::lowest, "per", "softmax"};
  // softmax 0.30 vs the closest other row 0.50: margin 0.2; spread = the largest range, 0.05.
  Verdict v = judge(c, {{"softmax", {0.29, 0.31}}, {"linear", {0.48, 0.52}}, {"bilstm", {0.15, 0.20}}});
  EXPECT_EQ(v.word, "does not hold");  // bilstm is lower by 0.125
  EXPECT_NEAR(v.margin, 0.175 - 0.3, 1e-12);
  v = judge(c, {{"softmax", {0.29, 0.31}}, {"linear", {0.48, 0.53}}});
  EXPECT_EQ(v.word, "holds");
  EXPECT_NEAR(v.spread, 0.05, 1e-12);
}

TEST(ExperimentsClaims, WithinFactorWorksOnLogValues) {
  const Claim c{"q", K::within_factor, "eval_loss", "linear", "softmax", 2.0};
  // Geometric means 0.0026 and 0.0004: a factor of 6.5 apart, beyond 2 by far more than the spread.
  Verdict v = judge(c, {{"linear", {0.0025, 0.0027}}, {"softmax", {0.0004, 0.0004}}});
  EXPECT_EQ(v.word, "does not hold");
  EXPECT_NEAR(v.margin, std::log(2.0) - std::log(std::sqrt(0.0025 * 0.0027) / 0.0004), 1e-9);
  // Factors of 1.1 apart with tight seeds: holds.
  EXPECT_EQ(judge(c, {{"linear", {1.10, 1.11}}, {"softmax", {1.0, 1.01}}}).word, "holds");
  // A non-positive loss cannot be compared on a log scale.
  EXPECT_EQ(judge(c, {{"linear", {0.0, 1.0}}, {"softmax", {1.0, 1.0}}}).word, "inconclusive at this budget");
}

TEST(ExperimentsClaims, RatioAtLeastPairsTheSeeds) {
  const Claim c{"q", K::ratio_at_least, "epoch_seconds", "linear", "softmax", 3.0};
  // softmax / linear per seed: 4.0 and 4.4 → mean 4.2, margin 1.2, spread 0.4.
  Verdict v = judge(c, {{"linear", {10.0, 10.0}}, {"softmax", {40.0, 44.0}}});
  EXPECT_EQ(v.word, "holds");
  EXPECT_NEAR(v.margin, 1.2, 1e-12);
  EXPECT_NEAR(v.spread, 0.4, 1e-12);
  EXPECT_EQ(judge(c, {{"linear", {10.0, 10.0}}, {"softmax", {20.0, 21.0}}}).word, "does not hold");
  EXPECT_EQ(judge(c, {{"linear", {10.0, 10.0}}, {"softmax", {28.0, 33.0}}}).word, "inconclusive at this budget");
}

TEST(ExperimentsClaims, RulesSayWhatIsCompared) {
  EXPECT_HAS(rule_text({"q", K::lower, "eval_loss", "linear", "lsh-4"}), "linear's final eval loss is lower than lsh-4's");
  EXPECT_HAS(rule_text({"q", K::ratio_at_least, "epochs", "softmax", "linear", 3}),
             "linear's epochs trained over softmax's is at least 3");
  EXPECT_HAS(rule_text({"q", K::within_factor, "eval_loss", "linear", "softmax", 2}), "within a factor of 2");
}

}  // namespace
}  // namespace lintra::experiments
