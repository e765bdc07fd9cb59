// sample.h — `lintra sample`: what a trained model generates, from its checkpoint.
#pragma once

#include <cstdint>
#include <string>

namespace lintra::train {

struct SampleCommand {
  std::string checkpoint;
  int64_t n = 16;
  std::string out;            // PNG path (default: <run dir>/samples/step_<N>.png next to the checkpoint)
  uint64_t seed = 0;
  std::string mode = "auto";  // auto | recurrent | recompute
  std::string device;         // empty: the checkpoint config's `device`
  std::string engine_weights;  // f32 | bf16: the compiled engine's weights; empty: nn::default_engine_weights()
                               // (f32: `sample` does not apply the checkpoint's matmul_precision)
};
// Image models: generates n images pixel by pixel (the recurrent form where the attention has one,
// else the prefix recomputed for every pixel, as the paper's protocol) and writes a PNG grid. With
// engine_weights the recurrent form must run on the compiled engine (an error names why it cannot),
// its weights in that format: bf16 halves the bytes each token streams, on any CPU.
// Speech models: prints the greedy CTC decodings of n test utterances beside their references.
// Copy models: prints the greedy copies of n test sequences and the copy accuracy.
// All on `device` (train/evaluate.h command_device); what is printed or written is copied to the host.
int run_sample(const SampleCommand& cmd);

}  // namespace lintra::train
