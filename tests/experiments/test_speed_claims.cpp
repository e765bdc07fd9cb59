// test_speed_claims.cpp — the claims of the generation speed tables (experiments/speed_claims.h):
// every claim compares two rows of one execution path, its values come from each timing pass, the
// verdict needs a margin beyond the spread between passes, and a claim this run cannot measure is
// listed as not checked instead of given a verdict.
#include <gtest/gtest.h>

#include <algorithm>

#include "experiments/speed_claims.h"
#include "tests/test_util.h"

namespace lintra::experiments {
namespace {

using lintra::testing::error_of;

bench::GenerateBenchRow row(const std::string& variant, double images_per_s) {
  bench::GenerateBenchRow r;
  r.variant = variant;
  r.images_per_s = images_per_s;
  r.seconds_per_image = 1 / images_per_s;
  return r;
}

Claim claim_on(const SpeedClaims& claims, const std::string& a, const std::string& b) {
  auto it = std::find_if(claims.checked.begin(), claims.checked.end(),
                         [&](const Claim& c) { return c.a == a && c.b == b; });
  if (it == claims.checked.end()) throw std::runtime_error("no claim on " + a + " and " + b);
  return *it;
}

// Both engine rows of CIFAR-10, with the linear / stateful-softmax ratio of each pass as given.
SpeedMeasurements cifar_engine(std::vector<double> ratios) {
  SpeedPasses passes;
  for (double r : ratios) passes.push_back({row("stateful-softmax", 0.2), row("causal-linear", 0.2 * r)});
  return {{"cifar", passes}};
}

TEST(ExperimentsSpeedClaims, ClaimsCompareRowsOfOneExecutionPath) {
  for (const SpeedClaims& claims : {throughput_claims(), latency_claims()})
    for (const Claim& c : claims.checked) {
      const bool a_modules = c.a.ends_with("-modules"), b_modules = c.b.ends_with("-modules");
      const bool a_recompute = c.a.ends_with(":softmax"), b_recompute = c.b.ends_with(":softmax");
      // Engine rows only with engine rows; recompute rows only with rows on the modules.
      EXPECT_EQ(a_modules || a_recompute, b_modules || b_recompute) << c.a << " vs " << c.b;
      EXPECT_EQ(c.sample, "measurement");
      EXPECT_HAS(c.quote, "both on the");
    }
}

TEST(ExperimentsSpeedClaims, TheFiftyTimesClaimIsJudgedAgainstTheSpreadBetweenPasses) {
  const Claim c = claim_on(throughput_claims(), "cifar:stateful-softmax", "cifar:causal-linear");
  EXPECT_EQ(c.threshold, 50);
  Verdict v = judge(c, pass_values(c, cifar_engine({5.0, 5.2})));
  EXPECT_EQ(v.word, "does not hold");
  EXPECT_NEAR(v.margin, 5.1 - 50, 1e-9);
  EXPECT_NEAR(v.spread, 0.2, 1e-9);
  EXPECT_HAS(v.evidence, "per measurement");
  EXPECT_EQ(judge(c, pass_values(c, cifar_engine({60, 62}))).word, "holds");
  EXPECT_EQ(judge(c, pass_values(c, cifar_engine({45, 56}))).word, "inconclusive at this budget");
  // One pass: no spread was measured, so no verdict.
  v = judge(c, pass_values(c, cifar_engine({60})));
  EXPECT_EQ(v.word, "inconclusive at this budget");
  EXPECT_HAS(v.evidence, "one measurement per row");
}

TEST(ExperimentsSpeedClaims, ValuesComeFromEachPassThatTimedTheRow) {
  const Claim c = claim_on(throughput_claims(), "mnist:softmax", "mnist:causal-linear-modules");
  // Pass 0 times every row; pass 1 only the compared ones, in another order.
  SpeedMeasurements m = {{"mnist",
                          {{row("softmax", 0.03), row("lsh-4", 0.02), row("causal-linear-modules", 3.0)},
                           {row("causal-linear-modules", 3.3), row("softmax", 0.03)}}}};
  const SeedValues v = pass_values(c, m);
  EXPECT_EQ(v.at("mnist:softmax"), (std::vector<double>{0.03, 0.03}));
  EXPECT_EQ(v.at("mnist:causal-linear-modules"), (std::vector<double>{3.0, 3.3}));
  // A row that failed in a pass makes the claim say a run did not report, never a verdict.
  m["mnist"][1][0].available = false;
  const Verdict bad = judge(c, pass_values(c, m));
  EXPECT_EQ(bad.word, "inconclusive at this budget");
  EXPECT_HAS(bad.evidence, "did not report images per second");
}

TEST(ExperimentsSpeedClaims, LatencyClaimsUseSecondsPerImage) {
  const Claim c = claim_on(latency_claims(), "mnist:causal-linear", "mnist:stateful-softmax");
  // linear 0.29 s and 0.30 s, stateful-softmax 0.45 s and 0.46 s: faster by far more than the spread.
  SpeedMeasurements m = {{"mnist",
                          {{row("causal-linear", 1 / 0.29), row("stateful-softmax", 1 / 0.45)},
                           {row("causal-linear", 1 / 0.30), row("stateful-softmax", 1 / 0.46)}}}};
  const Verdict v = judge(c, pass_values(c, m));
  EXPECT_EQ(v.word, "holds");
  EXPECT_NEAR(v.margin, 0.455 - 0.295, 1e-9);
  EXPECT_NEAR(v.spread, 0.01, 1e-9);
}

TEST(ExperimentsSpeedClaims, VariantsTimedAgainAreThoseTheClaimsCompare) {
  EXPECT_EQ(claim_variants(throughput_claims(), "mnist"),
            (std::vector<std::string>{"softmax", "causal-linear-modules"}));
  EXPECT_EQ(claim_variants(throughput_claims(), "cifar"),
            (std::vector<std::string>{"softmax", "causal-linear-modules", "stateful-softmax", "causal-linear"}));
  EXPECT_EQ(claim_variants(latency_claims(), "mnist"), (std::vector<std::string>{"causal-linear", "stateful-softmax"}));
  EXPECT_HAS(error_of([] {
               SpeedClaims bad;
               bad.checked.push_back({"q", Claim::Kind::lower, "seconds_per_image", "no-image", "mnist:softmax"});
               claim_variants(bad, "mnist");
             }),
             "not <image>:<variant>");
}

TEST(ExperimentsSpeedClaims, SectionGivesEachVerdictAndNamesWhatIsNotChecked) {
  SpeedMeasurements m = cifar_engine({5.0, 5.2});
  m["cifar"][0].push_back(row("softmax", 0.0004));
  m["cifar"][0].push_back(row("causal-linear-modules", 0.17));
  m["cifar"][1].push_back(row("softmax", 0.0004));
  m["cifar"][1].push_back(row("causal-linear-modules", 0.16));
  m["mnist"] = {{row("softmax", 0.03), row("causal-linear-modules", 3.0)},
                {row("softmax", 0.03), row("causal-linear-modules", 3.0)}};
  const std::string t = speed_claims_section(throughput_claims(), m);
  EXPECT_HAS(t, "## The paper's claims, checked");
  EXPECT_HAS(t, "timed 2 times");
  EXPECT_HAS(t, "\"more than 50× faster\"");
  EXPECT_HAS(t, "**does not hold**");
  EXPECT_EQ(t.find("not checked here"), std::string::npos);
  const std::string l = speed_claims_section(latency_claims(), m);
  EXPECT_HAS(l, "faster on the CPU than on the GPU in every case\" (Table 5) — **not checked here**");
}

bench::AttentionBenchRow attention(const std::string& variant, int64_t n, double ms, double mb) {
  bench::AttentionBenchRow r;
  r.variant = variant;
  r.n = n;
  r.ms_per_sample = ms;
  r.mb_per_sample = mb;
  return r;
}

// Two passes over two lengths: linear against softmax, with the given softmax times at N = 1,024.
ScalingPasses two_lengths(double softmax_ms_a, double softmax_ms_b) {
  return {{attention("causal-linear", 512, 1.0, 2.0), attention("softmax", 512, 3.0, 8.0),
           attention("causal-linear", 1024, 2.0, 4.0), attention("softmax", 1024, softmax_ms_a, 30.0)},
          {attention("causal-linear", 512, 1.1, 2.0), attention("softmax", 512, 3.1, 8.0),
           attention("causal-linear", 1024, 2.2, 4.0), attention("softmax", 1024, softmax_ms_b, 30.0)}};
}

TEST(ExperimentsSpeedClaims, FigureOneHoldsOnlyWhenEveryLengthAndMetricHolds) {
  ScalingVerdict v = judge_scaling(two_lengths(9.0, 9.5));
  EXPECT_EQ(v.comparisons, 4);  // 2 lengths × 1 baseline × (time, memory)
  EXPECT_EQ(v.holding, 4);
  EXPECT_EQ(v.word, "holds");
  // Softmax faster than linear at N = 1,024 in both passes: the claim does not hold, and says where.
  v = judge_scaling(two_lengths(1.0, 1.1));
  EXPECT_EQ(v.word, "does not hold");
  EXPECT_EQ(v.failing, 1);
  ASSERT_EQ(v.not_held.size(), 1u);
  EXPECT_HAS(v.not_held[0], "N = 1024 against softmax, ms per sample: does not hold");
  // Within the timing noise at N = 1,024 (linear 2.0 and 2.2, softmax 1.5 and 3.0): inconclusive.
  v = judge_scaling(two_lengths(1.5, 3.0));
  EXPECT_EQ(v.word, "inconclusive at this budget");
  EXPECT_EQ(v.failing, 0);
  // One pass measures no spread: never a verdict.
  EXPECT_EQ(judge_scaling({two_lengths(9.0, 9.5)[0]}).word, "inconclusive at this budget");
}

TEST(ExperimentsSpeedClaims, FigureOneSkipsLengthsThatDidNotRun) {
  ScalingPasses p = two_lengths(9.0, 9.5);
  for (auto& pass : p) {
    bench::AttentionBenchRow skipped = attention("softmax", 8192, -1, -1);
    skipped.skipped = true;
    pass.push_back(skipped);
    pass.push_back(attention("causal-linear", 8192, 10.0, 16.0));
  }
  const ScalingVerdict v = judge_scaling(p);
  EXPECT_EQ(v.comparisons, 4);
  EXPECT_EQ(v.word, "holds");
  const std::string md = scaling_claims_section(p);
  EXPECT_HAS(md, "Every length was timed 2 times");
  EXPECT_HAS(md, "for every configuration\" (Figure 1) — **holds**");
  EXPECT_HAS(md, "4 of 4 comparisons hold");
  EXPECT_HAS(md, "longest N run: linear 8192, softmax 1024");
}

}  // namespace
}  // namespace lintra::experiments
