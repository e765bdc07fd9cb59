// copy_task.cpp — copy-task samples, each from its own Philox stream.
#include "data/copy/copy_task.h"

#include <algorithm>

#include "data/files/digest.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/rng.h"

namespace lintra::data {

CopyTaskDataset::CopyTaskDataset(const CopyTaskOptions& options) : opt_(options) {
  LINTRA_CHECK(opt_.size > 0, "copy task: size must be positive, got {}", opt_.size);
  LINTRA_CHECK(opt_.max_length >= 8, "copy task: max_length must be at least 8, got {}", opt_.max_length);
  LINTRA_CHECK(opt_.num_symbols >= 1, "copy task: num_symbols must be positive, got {}", opt_.num_symbols);
}

std::string CopyTaskDataset::name() const {
  return fmt::format("copy(L={},symbols={},seed={},size={})", opt_.max_length, opt_.num_symbols, opt_.seed,
                     opt_.size);
}

Sample CopyTaskDataset::get(int64_t i) const {
  check_index(i);
  const int64_t L = opt_.max_length;
  Generator gen(opt_.seed, kCopyStreamBase + uint64_t(i));
  const int64_t n = gen.randint(min_n(), max_n() + 1);
  Sample s;
  s.tokens.assign(size_t(L), 0);
  for (int64_t k = 0; k < n; ++k) {
    const int64_t symbol = gen.randint(1, opt_.num_symbols + 1);
    s.tokens[size_t(k)] = symbol;          // w
    s.tokens[size_t(n + 1 + k)] = symbol;  // the copy, after the separator x[n] = 0
  }
  s.mask.assign(size_t(L - 1), 0);
  for (int64_t t = n - 1; t <= 2 * n - 1; ++t) s.mask[size_t(t)] = 1;
  return s;
}

uint64_t CopyTaskDataset::content_digest() const {
  Xxh3 h;
  const std::string n = name();
  h.update(n.data(), n.size());
  for (int64_t i = 0; i < std::min<int64_t>(size(), 1024); ++i) {
    Sample s = get(i);
    h.update_vector(s.tokens);
    h.update_vector(s.mask);
  }
  return h.digest();
}

}  // namespace lintra::data
