// evaluate.h — a trained model from its checkpoint, and its metrics on a data split (`lintra eval`,
// the trainer's periodic evaluation). A checkpoint needs no YAML: it stores its resolved config.
#pragma once

#include <map>
#include <string>

#include "core/device.h"
#include "data/dataset.h"
#include "nn/models/image_recurrent_engine.h"
#include "nn/models/model.h"
#include "train/checkpoint/checkpoint.h"
#include "train/config/config.h"
#include "train/distributed/communicator.h"

namespace lintra::train {

// The config stored in a checkpoint, validated against the current schema.
Config config_from_checkpoint(const CheckpointData& c);
// Copies a checkpoint's /model tensors into the model's parameters; throws listing every mismatch.
void load_model_weights(nn::Model& model, const CheckpointData& c);

// The device `lintra eval` or `lintra sample` computes on: `requested` (their --device) when given,
// else the `device` of the checkpoint's config (where it trained). Throws naming the command, the
// device and where it came from when it is no device or is not there (core/device.h
// check_device_available), with the hint --device cpu.
Device command_device(const Config& cfg, const std::string& requested, const std::string& command);

// The model's metrics (model.summarize) over the first max_batches batches of `split` (0: all), in
// order, in batches of min(batch_size, split size), each moved to the model's device; in eval mode
// without gradients, back in train mode after. Collective over `comm`: rank r evaluates batches r,
// r + K, …, and the metric sums are added over the ranks, so every rank gets the metrics of the same
// batches one process evaluates.
struct Evaluation {
  std::map<std::string, double> metrics;
  int64_t batches = 0, batch_size = 0;  // what was evaluated
};
Evaluation evaluate_model(nn::Model& model, const data::Dataset& split, int64_t batch_size, int64_t max_batches,
                          dist::Communicator& comm = dist::single_process());

// The same metrics with an image model scored token by token on its compiled recurrent engine
// (nn/models/image_engine_score.h) with float32 or bf16 weights: the recurrent form's numbers, and
// what bf16 weights cost. One process, the CPU. Throws for models the engine cannot run.
Evaluation evaluate_on_engine(nn::Model& model, const data::Dataset& split, int64_t batch_size, int64_t max_batches,
                              nn::EngineWeights weights);

struct EvalCommand {
  std::string checkpoint;
  int64_t max_batches = 0;  // 0: the whole evaluation split
  std::string device;       // empty: the checkpoint config's `device`
  std::string engine;       // empty: the batch model; f32 | bf16: evaluate_on_engine with those weights
};
// `lintra eval`: prints the metrics of a checkpoint on its data set's test split.
int run_eval(const EvalCommand& cmd);

}  // namespace lintra::train
