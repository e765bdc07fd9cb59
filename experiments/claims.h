// claims.h — the paper's claims about a table, and the rule that checks each from the rows' numbers.
//
// Every row of a table is trained with several seeds. A claim compares rows on one metric; its
// margin says by how much the runs agree with the claim, in the metric's units, and its spread is
// the largest range (max − min over the seeds) among the rows it compares. The verdict is
//   **holds**                      margin >  spread
//   **does not hold**              margin < −spread
//   **inconclusive at this budget** otherwise, and always with fewer than two seeds per row
// so a verdict never rests on a difference that reseeding alone can produce.
//
// The kinds of claim and their margins (mean over seeds; a, b the two rows):
//   lower(a, b)             "a is lower than b":        mean(b) − mean(a)
//   lowest(a)               "a is the lowest row":      min over the other rows r of mean(r) − mean(a)
//   within_factor(a, b, f)  "a reaches b's level":      log f − |mean(log a) − mean(log b)|, spread on log values
//   ratio_at_least(a, b, r) "b / a is at least r":      mean over seeds s of b_s / a_s − r, spread of those ratios
#pragma once

#include <map>
#include <string>
#include <vector>

namespace lintra::experiments {

struct Claim {
  enum class Kind { lower, lowest, within_factor, ratio_at_least };
  std::string quote;   // the paper's words (PAPER.md), or the table's numbers it rests on
  Kind kind = Kind::lower;
  std::string metric;  // the row metric compared (row_metric in results_file.h): eval_loss, bits_per_dim, per, …
  std::string a, b;    // the rows (b unused by lowest)
  double threshold = 0;  // within_factor: the factor; ratio_at_least: the ratio
  std::string sample = "seed";  // what one value per row is: a seed (training tables) or a measurement (speed)
};

// Each row's metric, one value per seed (in seed order; NaN where a run lacks it). The speed tables
// pass one value per repeated measurement instead, and the spread is then the timing noise.
using SeedValues = std::map<std::string, std::vector<double>>;

struct Verdict {
  double margin = 0, spread = 0;
  int seeds = 0;         // the fewest seeds among the rows compared
  std::string word;      // holds | does not hold | inconclusive at this budget
  std::string evidence;  // the numbers the verdict rests on, for the results file
};

Verdict judge(const Claim& claim, const SeedValues& values);

// The rule of a claim in words ("linear's eval loss is lower than lsh-4's by more than the seed spread").
std::string rule_text(const Claim& claim);

}  // namespace lintra::experiments
