// speed_claims.h — the paper's claims about the generation speed tables (Table 4 and the images/s of
// Tables 1 and 2 for `throughput`; Table 5 for `latency`), each checked from repeated measurements.
//
// A speed table times every row once and then again the rows its claims compare (kSpeedPasses passes
// in all). The passes play the part that seeds play in the training tables (claims.h): pass p gives
// each compared row one value, a claim's spread is the largest max − min over the passes, and the claim
// **holds** or **does not hold** only when its margin exceeds that spread. Rows are named
// "<image>:<variant>" (image mnist or cifar, variant a `lintra bench generate` row), and every claim
// compares two rows on one execution path (both on the compiled engine, or both on the modules).
//
// A claim the run cannot measure (Table 5's CPU-against-GPU claim on a machine without a GPU) is listed
// with the reason it is not checked, never with a verdict.
//
// `scaling` (Figure 1) runs the whole attention benchmark kSpeedPasses times. Its claim, "faster and
// requires less memory than the baselines for every configuration", is a claim of kind lower per length N
// and baseline, once on ms per sample and once on MB per sample (linear's mean below the baseline's by
// more than the spread between passes). It holds when every comparison holds, does not hold when one
// does not, and is inconclusive otherwise.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "bench/attention.h"
#include "bench/generate.h"
#include "experiments/claims.h"

namespace lintra::experiments {

inline constexpr int kSpeedPasses = 2;

// One image kind's measurements: pass 0 holds every row, later passes the rows the claims compare.
using SpeedPasses = std::vector<std::vector<bench::GenerateBenchRow>>;
// By image kind: "mnist", "cifar".
using SpeedMeasurements = std::map<std::string, SpeedPasses>;

struct UncheckedClaim {
  std::string quote;
  std::string why;  // what a check would need that this run does not have
};

struct SpeedClaims {
  std::vector<Claim> checked;
  std::vector<UncheckedClaim> unchecked;
};

SpeedClaims throughput_claims();
SpeedClaims latency_claims();

// The variants of `image` that the claims compare (timed again in every pass after the first).
std::vector<std::string> claim_variants(const SpeedClaims& claims, const std::string& image);

// A claim's rows, one value per pass that timed them (the claim's metric read from each row; NaN where
// a pass has the row but it did not run).
SeedValues pass_values(const Claim& claim, const SpeedMeasurements& measured);

// "## The paper's claims, checked": how the verdicts are made, then each claim with its rule, numbers
// and verdict, then the claims not checked and why.
std::string speed_claims_section(const SpeedClaims& claims, const SpeedMeasurements& measured);

// Figure 1's claim checked over every pass of the attention benchmark: the same section, for `scaling`.
using ScalingPasses = std::vector<std::vector<bench::AttentionBenchRow>>;
struct ScalingVerdict {
  int comparisons = 0, holding = 0, failing = 0;
  std::string word;                   // holds | does not hold | inconclusive at this budget
  std::vector<std::string> not_held;  // each comparison that did not hold: what, margin, spread, verdict
};
ScalingVerdict judge_scaling(const ScalingPasses& passes, const std::string& linear = "causal-linear");
std::string scaling_claims_section(const ScalingPasses& passes);

}  // namespace lintra::experiments
