// gradient_averager.h — the Trainer's seam for data-parallel training: after every backward, before
// the optimizer step, the gradients of the ranks that train together become the gradient of the
// global batch, the same bits on every rank.
//
// The trainer weights each rank's loss before backward: rank r's mean loss over its n_r counted
// items (ModelOutput::sums["count"]: tokens, pixels or utterances) is scaled by n_r / Σ n (the counts
// are summed over the ranks first), so that summing the ranks' gradients gives the gradient of the
// global mean, Σ loss_sum_r / Σ n — what one process computes for the whole global batch — even
// when the ranks count different numbers of items (masked tokens). The averager therefore sums.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/device.h"
#include "train/distributed/bucketed_sum.h"
#include "train/distributed/communicator.h"
#include "train/optim/optimizer.h"

namespace lintra::dist {
class NcclSum;
}

namespace lintra::train {

class GradientAverager {
 public:
  virtual ~GradientAverager() = default;
  virtual void average(const std::vector<NamedParam>& params) = 0;
};

// One process: its gradients are already the global batch's.
class SingleProcessAverager final : public GradientAverager {
 public:
  void average(const std::vector<NamedParam>&) override {}
};

// Sums the weighted gradients over the ranks of `comm`, in the parameters' order. A parameter that has
// a gradient on some rank gets one (zeros where it had none) on every rank, so that the optimizer
// updates it everywhere, as one process would; one no rank touched keeps none. Where the gradients live
// (the model's `device`) decides how:
//   cpu    a bucket at a time (dist::BucketedSum: fixed order, so every rank ends with the same bits);
//   cuda   on the GPU with NCCL in builds that have it (dist::NcclSum: one all-reduce per tensor on the
//          device's stream; NCCL's order of summation, the same result on every rank), NCCL's unique id
//          going round through `comm` when the averager is made (on every rank at once: it is collective)
//          — when every rank has a GPU of its own: NCCL refuses two ranks on one GPU, so ranks that share
//          one sum through the host instead;
//   other  through the host: copied to the CPU, summed as on the CPU, copied back (the strict test
//          device; CUDA in a build without NCCL) — the same bits as a CPU run of the same ranks.
// how() says which, for the run's log.
class AllReduceAverager final : public GradientAverager {
 public:
  explicit AllReduceAverager(dist::Communicator& comm, Device device = Device::cpu,
                             int64_t bucket_bytes = dist::kDefaultBucketBytes);
  ~AllReduceAverager() override;
  void average(const std::vector<NamedParam>& params) override;
  const std::string& how() const { return how_; }

 private:
  dist::Communicator& comm_;
  Device device_;
  std::string how_;
  dist::BucketedSum sum_;
#ifdef LINTRA_WITH_NCCL
  std::unique_ptr<dist::NcclSum> nccl_;  // CUDA gradients when every rank has its own GPU
#endif
};

}  // namespace lintra::train
