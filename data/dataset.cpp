// dataset.cpp — Sample checks and the default Dataset digest.
#include "data/dataset.h"

#include "core/error.h"
#include "data/files/digest.h"

namespace lintra::data {

int64_t Sample::length() const {
  if (!bytes.empty()) return int64_t(bytes.size());
  if (!tokens.empty()) return int64_t(tokens.size());
  if (feature_dim > 0) return int64_t(features.size()) / feature_dim;
  return 0;
}

void Sample::validate() const {
  int kinds = int(!bytes.empty()) + int(!tokens.empty()) + int(feature_dim > 0 || !features.empty());
  LINTRA_CHECK(kinds == 1, "Sample: expected exactly one input sequence (bytes, tokens or features), got {}",
               kinds);
  if (feature_dim > 0 || !features.empty()) {
    LINTRA_CHECK(feature_dim > 0 && features.size() % size_t(feature_dim) == 0,
                 "Sample: {} feature values do not divide into frames of feature_dim {}", features.size(),
                 feature_dim);
  }
}

uint64_t Dataset::content_digest() const {
  Xxh3 h;
  int64_t n = size();
  h.update_value(n);
  for (int64_t i = 0; i < n; ++i) {
    Sample s = get(i);
    h.update_vector(s.bytes);
    h.update_vector(s.tokens);
    h.update_vector(s.features);
    h.update_value(s.feature_dim);
    h.update_value(s.label);
    h.update_vector(s.targets);
    h.update_vector(s.mask);
  }
  return h.digest();
}

void Dataset::check_index(int64_t i) const {
  LINTRA_CHECK(i >= 0 && i < size(), "{}: sample index {} out of range [0, {})", name(), i, size());
}

}  // namespace lintra::data
