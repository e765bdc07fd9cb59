#include "train/gradient_averager.h"

#include "train/distributed/nccl_sum.h"

namespace lintra::train {

AllReduceAverager::AllReduceAverager(dist::Communicator& comm, Device device, int64_t bucket_bytes)
    : comm_(comm), device_(device), sum_(comm, bucket_bytes) {
#ifdef LINTRA_WITH_NCCL
  if (device.is_cuda()) nccl_ = std::make_unique<dist::NcclSum>(comm, int(device.index()));
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
  if (nccl_) {
    for (Tensor& g : grads) nccl_->sum(g);
    return;
  }
  std::vector<Tensor> host;
  host.reserve(grads.size());
  for (const Tensor& g : grads) host.push_back(g.to(Device::cpu));
  sum_.sum(host);
  for (size_t i = 0; i < grads.size(); ++i) grads[i].copy_(host[i]);
}

}  // namespace lintra::train
