// dataset.h — one example (Sample) and the abstract random-access Dataset.
//
// A Sample carries exactly one input sequence, of one of three kinds:
//   bytes     uint8 values, e.g. MNIST's 784 pixels or CIFAR's 3072 sub-pixels (0..255)
//   tokens    int64 symbols, e.g. the copy task's 128 symbols
//   features  float frames, row-major (frames × feature_dim), e.g. 40 log-mel values per 10 ms
// plus, as the task needs, a class `label` (images), a `targets` sequence (speech phones) and a
// loss `mask` (the copy task: 1 where a prediction counts). The loader (data/loader.h) turns a list
// of Samples into padded batch tensors.
//
// Datasets are immutable after construction: get(i) is const and must be safe to call from several
// threads at once (the loader's prefetch thread calls it while the trainer may evaluate).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lintra::data {

struct Sample {
  std::vector<uint8_t> bytes;    // input kind 1: byte sequence
  std::vector<int64_t> tokens;   // input kind 2: token sequence
  std::vector<float> features;   // input kind 3: (frames × feature_dim), row-major
  int64_t feature_dim = 0;       // F; > 0 exactly when features are present
  int64_t label = -1;            // class label; -1 when the task has none
  std::vector<int64_t> targets;  // target sequence (e.g. phones); empty when the task has none
  std::vector<uint8_t> mask;     // loss mask, meaning documented by the task; empty when none

  // Length of the input sequence: bytes, tokens or frames (whichever is present; 0 when none).
  int64_t length() const;
  // Throws unless exactly one input kind is present and features fit feature_dim.
  void validate() const;
};

class Dataset {
 public:
  virtual ~Dataset() = default;

  virtual int64_t size() const = 0;
  virtual Sample get(int64_t i) const = 0;  // i in [0, size()); thread-safe
  virtual std::string name() const = 0;     // e.g. "mnist/train", "copy(seed=1,n=100000)"
  // XXH3-64 over the contents, for run logs. The default hashes every sample's fields in order
  // (cost: one pass over the data); file-backed datasets override it with a hash of their bytes.
  virtual uint64_t content_digest() const;
  // Input length of sample i (for length bucketing); the default builds the sample.
  virtual int64_t length(int64_t i) const { return get(i).length(); }

 protected:
  void check_index(int64_t i) const;  // throws naming name(), i and size()
};

}  // namespace lintra::data
