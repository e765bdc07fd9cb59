#include "train/distributed/bucketed_sum.h"

#include <algorithm>

#include "core/error.h"

namespace lintra::dist {

std::vector<Bucket> plan_buckets(const std::vector<int64_t>& numels, int64_t bucket_elements) {
  LINTRA_CHECK(bucket_elements > 0, "plan_buckets: bucket size {} must be positive", bucket_elements);
  std::vector<Bucket> plan;
  int64_t room = 0;  // left in the last bucket
  for (size_t t = 0; t < numels.size(); ++t) {
    for (int64_t offset = 0; offset < numels[t];) {
      if (room == 0) {
        plan.emplace_back();
        room = bucket_elements;
      }
      const int64_t length = std::min(room, numels[t] - offset);
      plan.back().push_back({t, offset, length});
      offset += length;
      room -= length;
    }
  }
  return plan;
}

BucketedSum::BucketedSum(Communicator& comm, int64_t bucket_bytes)
    : comm_(comm), bucket_elements_(std::max<int64_t>(1, bucket_bytes / int64_t(sizeof(float)))) {}

void BucketedSum::sum(const std::vector<Tensor>& tensors) {
  std::vector<int64_t> numels;
  for (const Tensor& t : tensors) {
    LINTRA_CHECK(t.device() == Device::cpu && t.dtype() == DType::f32 && t.is_contiguous(),
                 "BucketedSum: tensors must be contiguous float32 on the CPU, got {} {} on {}", t.dtype(),
                 shape_str(t.shape()), t.device());
    numels.push_back(t.numel());
  }
  if (comm_.size() == 1) return;
  if (numels != numels_) {
    plan_ = plan_buckets(numels, bucket_elements_);
    numels_ = std::move(numels);
  }
  for (const Bucket& bucket : plan_) {
    buffer_.resize(0);
    for (const Segment& s : bucket) {
      const float* p = tensors[s.tensor].data<float>() + s.offset;
      buffer_.insert(buffer_.end(), p, p + s.length);
    }
    comm_.sum(std::span<float>(buffer_));
    const float* in = buffer_.data();
    for (const Segment& s : bucket) {
      std::copy_n(in, s.length, tensors[s.tensor].data<float>() + s.offset);
      in += s.length;
    }
  }
}

}  // namespace lintra::dist
