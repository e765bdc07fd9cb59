// attention.h — `lintra bench attention`: the paper's Figure 1 protocol (PAPER.md §1), on the CPU or --device.
//
// For each attention variant and N = min_n … max_n (powers of two): the INNER attention's forward and
// backward (gradients w.r.t. q, k and v, from a random output gradient) on synthetic normal inputs
// q, k (B, H, N, E) and v (B, H, N, E), attention dropout 0, no key lengths. The causal mask is used
// when asked for and the variant accepts it; a variant that accepts only the causal mask
// (causal-linear) always gets it, one that refuses it (linear) gets the full mask — the `causal` field
// says which mask ran.
//
// Batch rule: B = max(1, tokens / N) with tokens = 4096 by default, so every call up to N = 4096
// processes the same number of tokens and small N stay measurable; B = 1 from N = 4096 on.
//
// Time per sample: the best of ≥ 3 calls (and at least min_seconds in total) after one warm-up
// call, divided by B. Memory per sample: the CPU allocator's peak of live tensor bytes during one
// forward + backward, minus the bytes live before it (q, k, v and the output gradient), divided by B
// — so it counts the output, everything saved for backward, the temporaries and the gradients of
// q, k and v (the analogue of torch.cuda.max_memory_allocated minus the inputs).
//
// Before each size the total memory is predicted — from the variant's previous per-sample
// measurement times its observed growth per doubling (at least 2×), and for softmax at least the
// analytic 3·H·N²·4 bytes per sample (scores, probabilities, their gradient) — and a size whose
// prediction exceeds the cap is skipped, not run. A variant that throws lintra::Error at some size
// is reported, its remaining sizes are listed as skipped, and the sweep goes on with the next variant.
//
// Variants are registry names, optionally with parameters: "reformer:rounds=1:chunk_size=32".
//
// --device: the inputs live on that device and the memory is its allocator's peak; on a GPU each timed
// call ends by reading one element of q's gradient back to the host, which waits for the device's stream.
// Every row says its device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lintra::bench {

struct AttentionBenchOptions {
  std::string json_path;              // empty: no JSON
  std::vector<std::string> variants;  // empty: every registered variant
  int64_t min_n = 512;
  int64_t max_n = 65536;
  int64_t tokens = 4096;              // batch rule: B = max(1, tokens / N)
  double memory_cap_mb = 4096;        // predicted total above this: skipped
  int64_t heads = 8;                  // H
  int64_t dim = 32;                   // E = M per head
  bool causal = true;
  double min_seconds = 1.0;           // timing budget per (variant, N), after the warm-up
  std::string device = "cpu";         // where it runs: cpu, cuda, cuda:N (strict for tests)
};

struct AttentionBenchRow {
  std::string variant;
  std::string device;
  int64_t n = 0, batch = 0, heads = 0, dim = 0;
  bool causal = false;         // the mask that ran (or would have)
  double ms_per_sample = -1;   // < 0 when skipped
  double mb_per_sample = -1;
  bool skipped = false;
  std::string note;            // why skipped, or the error
};

// Runs the sweep, prints a table, writes the JSON (one object per (variant, N) with exactly the
// fields variant, device, n, batch, heads, dim, causal, ms_per_sample, mb_per_sample, skipped; null
// numbers when skipped) and returns the rows.
std::vector<AttentionBenchRow> run_attention_benchmark(const AttentionBenchOptions& options);


}  // namespace lintra::bench
