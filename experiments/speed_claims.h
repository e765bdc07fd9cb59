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
#pragma once

#include <map>
#include <string>
#include <vector>

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

}  // namespace lintra::experiments
