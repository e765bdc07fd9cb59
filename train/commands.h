// commands.h — the `lintra` subcommands that read checkpoints: eval, sample, ckpt info|ls|verify|diff.
// They need no YAML: the resolved config is stored in every checkpoint (/config).
#pragma once

#include <string>
#include <vector>

#include "nn/models/model.h"
#include "train/checkpoint.h"
#include "train/config.h"

namespace lintra::train {

// The config stored in a checkpoint, validated against the current schema.
Config config_from_checkpoint(const CheckpointData& c);
// Copies a checkpoint's /model tensors into the model's parameters; throws listing every mismatch.
void load_model_weights(nn::Model& model, const CheckpointData& c);

struct EvalCommand {
  std::string checkpoint;
  int64_t max_batches = 0;  // 0: the whole evaluation split
};
int run_eval(const EvalCommand& cmd);

struct SampleCommand {
  std::string checkpoint;
  int64_t n = 16;
  std::string out;           // PNG path (default: <run dir>/samples/step_<N>.png next to the checkpoint)
  uint64_t seed = 0;
  std::string mode = "auto";  // auto | recurrent | recompute
};
// Image models: generates n images pixel by pixel (the recurrent form where the attention has one,
// else the prefix recomputed for every pixel, as the paper's protocol) and writes a PNG grid.
// Speech models: prints the greedy CTC decodings of n test utterances beside their references.
// Copy models: prints the greedy copies of n test sequences and the copy accuracy.
int run_sample(const SampleCommand& cmd);

// ckpt info|ls|verify|diff. Returns the exit status: verify gives 1 when any file fails.
int run_ckpt(const std::string& action, const std::vector<std::string>& paths);

}  // namespace lintra::train
