// model_size.h — what a config's model will take, known before it is built: its parameter count
// (the number Model::num_parameters() gives once built; tests/train/test_model_size.cpp keeps these
// formulas in step with the modules) and an estimate of the memory one training update needs:
//   - weights: parameters, their gradients and the optimizer's slots (adam/radam: 2, sgd: 1 with
//     momentum), 4 bytes each — exact;
//   - activations: what one batch keeps for backward, a rough lower bound (per transformer layer
//     about 10 × d_model + 2 × d_ff floats per position, and softmax's two T × T matrices per head;
//     per LSTM layer and direction 12 × hidden), at data.batch_size × the longest item.
// Counts are doubles: a config can ask for more than an int64 holds (model.layers=1e15).
//
// The trainer prints the estimate before it allocates anything of the model, and refuses a model
// whose estimate exceeds the memory available (check_fits_in_memory), naming the keys that size it.
#pragma once

#include <cstdint>
#include <string>

#include "train/config/config.h"

namespace lintra::train {

struct ModelSize {
  double parameters = 0;
  double weight_bytes = 0;      // parameters + gradients + optimizer slots
  double activation_bytes = 0;  // of one batch of batch × sequence
  int64_t optimizer_slots = 0;
  int64_t batch = 0, sequence = 0;
  double total_bytes() const { return weight_bytes + activation_bytes; }
  // "2,118,411 parameters; training needs about 54.2 MiB (weights, gradients and 2 optimizer slots 32.3
  // MiB, activations of a batch of 64 × 32 about 21.9 MiB)"
  std::string describe() const;
};

// `sequence`: the longest item of the training data (tokens, pixels or frames).
ModelSize estimate_model_size(const Config& cfg, int64_t sequence);

// Bytes this process can still allocate: MemAvailable of /proc/meminfo (sysconf's available pages
// when it cannot be read), lowered to what a cgroup v2 memory.max leaves (memory.max − memory.current).
double available_memory_bytes();

// Throws lintra::Error when size.total_bytes() exceeds `available`, naming the keys (with their
// values and where they were set) that make the model and the batch this large.
void check_fits_in_memory(const Config& cfg, const ModelSize& size, double available);

// "1.5 GiB", "640 KiB", "12 B".
std::string human_bytes(double bytes);

}  // namespace lintra::train
