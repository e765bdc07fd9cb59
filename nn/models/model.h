// model.h — what the trainer needs of a model, so that one training loop serves every experiment.
//
// The trainer turns a data batch into a ModelBatch (tensors only: nn/ knows nothing of files or
// data sets), calls loss() for a mean loss to differentiate plus additive metric sums, adds the sums
// over batches, and asks summarize() for the reported metrics ("loss", "accuracy", "bits_per_dim",
// "per", …). Each model type is built from its config section by train/model_factory.cpp.
#pragma once

#include <map>
#include <string>

#include "autograd/var.h"
#include "nn/module.h"

namespace lintra::nn {

struct ModelBatch {
  Tensor inputs;          // int64 (B, L): tokens or pixel values; undefined for feature inputs
  Tensor features;        // float32 (B, T, F): speech filterbanks
  Tensor lengths;         // int64 (B): valid input lengths (variable-length inputs)
  Tensor targets;         // int64 (B, S): target sequences (speech phones)
  Tensor target_lengths;  // int64 (B)
  Tensor mask;            // uint8 (B, L−1): which next-token predictions count (copy task)
  int64_t batch_size() const;
  // Every defined tensor copied to `device` (data sets make CPU batches; the model's device decides).
  ModelBatch to(Device device) const;
};

using MetricSums = std::map<std::string, double>;

struct ModelOutput {
  Var loss;         // scalar: the mean loss to differentiate, on the model's device
  MetricSums sums;  // additive over batches, e.g. {"nll_sum", "count", "correct"}: host numbers
};

// The value of a one-element tensor on any device, copied to the host (metric sums).
double host_scalar(const Tensor& t);

class Model : public Module {
 public:
  virtual ModelOutput loss(const ModelBatch& batch) = 0;
  // Reported metrics from summed MetricSums, e.g. loss = nll_sum / count.
  virtual std::map<std::string, double> summarize(const MetricSums& sums) const = 0;
  // The metric that decides "best" and reduce-on-plateau (lower is better).
  virtual std::string primary_metric() const { return "loss"; }
  // Items per batch for throughput (sequences, images or utterances).
  virtual std::string item_name() const { return "sequences"; }
};

// Adds b into a (metric sums over batches).
void accumulate_sums(MetricSums& a, const MetricSums& b);

}  // namespace lintra::nn
