// copy_task.h — the synthetic copy task of the paper's §4.1 / Figure 2 (DATA.md "Copy task").
//
// A sequence x of max_length L (128) symbols: n symbols w drawn uniformly from 1..10, the separator
// 0, w again, then 0 padding to L:   x = w_0 … w_{n-1}, 0, w_0 … w_{n-1}, 0, …, 0
// with n uniform in [L/4, (L-1)/2) — 32 … 62 for L = 128 — so 2n + 1 < L always.
//
// Training is next-symbol prediction: input x[0 .. L-2] → target x[1 .. L-1] (both L-1 long);
// target position t predicts x[t+1]. The loss and accuracy count only the separator and the copy:
// x[n] (the separator) is predicted at target position n-1 and the copy x[n+1 .. 2n] at positions
// n .. 2n-1. So Sample::mask has L-1 entries, 1 exactly at target positions n-1 … 2n-1 (n+1 ones).
//
// Sample::tokens holds the whole x (L long); the trainer slices inputs [:, :-1] and targets [:, 1:].
//
// Determinism: sample i is a pure function of (seed, i): it is drawn from its own Philox stream,
// Generator(seed, kCopyStreamBase + i) — first n = randint(L/4, (L-1)/2), then the n symbols with
// randint(1, 11). The data set needs no storage, any sample can be made on demand, and a resumed run
// sees the same samples. kCopyStreamBase keeps these streams apart from the loader's shuffle streams
// (stream = epoch) when both use the same seed. Train and test sets are two seeds.
#pragma once

#include <cstdint>
#include <string>

#include "data/dataset.h"

namespace lintra::data {

struct CopyTaskOptions {
  int64_t size = 100000;       // samples per epoch
  int64_t max_length = 128;    // L
  int64_t num_symbols = 10;    // symbols are 1..num_symbols; 0 is the separator and padding
  uint64_t seed = 0;
};

class CopyTaskDataset : public Dataset {
 public:
  static constexpr uint64_t kCopyStreamBase = 0x636f707900000000ull;  // "copy" << 32

  explicit CopyTaskDataset(const CopyTaskOptions& options);

  int64_t size() const override { return opt_.size; }
  Sample get(int64_t i) const override;  // tokens (L), mask (L-1)
  std::string name() const override;    // "copy(L=128,symbols=10,seed=S,size=N)"
  int64_t length(int64_t) const override { return opt_.max_length; }
  // Generated data: the digest covers the options (name()) and the first 1,024 samples, which
  // pins the generator without generating every sample of a large data set.
  uint64_t content_digest() const override;

  int64_t min_n() const { return opt_.max_length / 4; }             // inclusive
  int64_t max_n() const { return (opt_.max_length - 1) / 2 - 1; }   // inclusive
  int64_t vocab_size() const { return opt_.num_symbols + 1; }
  const CopyTaskOptions& options() const { return opt_; }

 private:
  CopyTaskOptions opt_;
};

}  // namespace lintra::data
