// bucketed_sum.h — summing many float32 tensors over the ranks (the gradients of a model), a bucket
// at a time: the tensors, in the order given, are packed into one flat buffer of at most
// bucket_bytes, summed with Communicator::sum (fixed order: the same bits on every rank) and
// unpacked in place. One call per bucket instead of one per tensor, with a bounded buffer (a tensor
// larger than a bucket spans several). The order of the tensors fixes the order of the buckets; the
// sum of each element is over the ranks only, so bucketing never changes a result.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "train/distributed/communicator.h"

namespace lintra::dist {

inline constexpr int64_t kDefaultBucketBytes = int64_t(8) << 20;

// Elements [offset, offset + length) of tensor number `tensor`.
struct Segment {
  size_t tensor = 0;
  int64_t offset = 0, length = 0;
  bool operator==(const Segment&) const = default;
};
using Bucket = std::vector<Segment>;

// The concatenation of tensors of `numels` elements, in order, cut into buckets of at most
// `bucket_elements` elements (each full but the last); empty tensors take no segment.
std::vector<Bucket> plan_buckets(const std::vector<int64_t>& numels, int64_t bucket_elements);

class BucketedSum {
 public:
  explicit BucketedSum(Communicator& comm, int64_t bucket_bytes = kDefaultBucketBytes);
  // Every tensor (CPU, float32, contiguous) becomes its sum over the ranks.
  void sum(const std::vector<Tensor>& tensors);
  int64_t buckets() const { return int64_t(plan_.size()); }  // in the last call

 private:
  Communicator& comm_;
  int64_t bucket_elements_;
  std::vector<int64_t> numels_;  // of the last call: the plan is made again only when they change
  std::vector<Bucket> plan_;
  std::vector<float> buffer_;
};

}  // namespace lintra::dist
