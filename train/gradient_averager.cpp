#include "train/gradient_averager.h"

#include <fmt/format.h>

#include "train/distributed/nccl_sum.h"

namespace lintra::train {

namespace {

// The first two ranks of `ids` that hold the same value, as "ranks a and b", or "" when all differ.
std::string shared(const std::vector<std::string>& ids) {
  for (size_t a = 0; a < ids.size(); ++a)
    for (size_t b = a + 1; b < ids.size(); ++b)
      if (ids[a] == ids[b]) return fmt::format("ranks {} and {}", a, b);
  return "";
}

}  // namespace

AllReduceAverager::AllReduceAverager(dist::Communicator& comm, Device device, int64_t bucket_bytes)
    : comm_(comm), device_(device), sum_(comm, bucket_bytes) {
  how_ = device.is_cpu() ? "summed in rank order on the CPU" : fmt::format("on {}, summed through the host", device);
#ifdef LINTRA_WITH_NCCL
  if (device.is_cuda()) {
    const std::string both = shared(comm.all_gather(dist::NcclSum::gpu_identity(int(device.index()))));
    if (both.empty()) {
      nccl_ = std::make_unique<dist::NcclSum>(comm, int(device.index()));
      how_ = fmt::format("on {}, summed with NCCL", device);
    } else {
      how_ += fmt::format(" ({} share one GPU, which NCCL refuses)", both);
    }
  }
#endif
}

AllReduceAverager::~AllReduceAverager() = default;

void AllReduceAverager::average(const std::vector<NamedParam>& params) {
  std::vector<double> has_grad(params.size());
  for (size_t i = 0; i < params.size(); ++i) has_grad[i] = params[i].var.grad().defined() ? 1 : 0;
  comm_.max(has_grad);
  std::vector<Tensor> grads;
  for (size_t i = 0; i < params.size(); ++i) {
    if (has_grad[i] == 0) continue;
    Var v = params[i].var;
    LINTRA_CHECK(v.data().device() == device_, "gradient averaging: parameter '{}' lives on {}, the model on {}",
                 params[i].name, v.data().device(), device_);
    if (!v.grad().defined()) v.set_grad(Tensor::zeros(v.shape(), v.dtype(), device_));
    if (!v.grad().is_contiguous()) v.set_grad(v.grad().contiguous());
    grads.push_back(v.grad());
  }
  if (device_.is_cpu()) return sum_.sum(grads);
#ifdef LINTRA_WITH_NCCL
  if (nccl_) {
    for (Tensor& g : grads) nccl_->sum(g);
    return;
  }
#endif
  std::vector<Tensor> host;
  host.reserve(grads.size());
  for (const Tensor& g : grads) host.push_back(g.to(Device::cpu));
  sum_.sum(host);
  for (size_t i = 0; i < grads.size(); ++i) grads[i].copy_(host[i]);
}

}  // namespace lintra::train
