// experiment_config.h — the schema of a training config (every key, its type, range and default;
// configs/base.yaml is generated from it) and the typed views the trainer reads.
//
// Sections: top level (experiment, seed, threads, device), data, model (with model.attention validated
// against the attention registry: its allowed keys depend on model.attention.type), optim,
// schedule, train. A component validates its own section; unknown keys anywhere are errors with
// file:line and a did-you-mean.
#pragma once

#include <string>
#include <vector>

#include "core/device.h"
#include "core/matmul_precision.h"
#include "nn/attention/registry.h"
#include "train/config/config.h"
#include "train/optim/optimizer.h"
#include "train/optim/schedule.h"

namespace lintra::train {

Schema experiment_schema();
// configs/base.yaml: every key with its default and its one-line doc (a test keeps the file in sync).
std::string documented_base_config();

// Loads files left to right, applies overrides, validates (train/config/config.h semantics), then
// checks what no single key can: check_model_fits_data.
Config load_experiment_config(const std::vector<std::string>& files, const std::vector<std::string>& overrides);
// model.type against data.name (copy: copy; image: mnist, fashion-mnist, cifar10, photos32; speech and
// bilstm: espeak-speech, speech); throws naming both keys, where each was set, and the valid pairs.
void check_model_fits_data(const Config& cfg);
// `experiment` names runs/<experiment>/ when no --run-dir is given (the trainer checks it then):
// non-empty, relative, no '.', '..' or empty parts, no control characters; throws naming the key and
// where it was set.
void check_experiment_name(const Config& cfg);

// `device`: cpu, cuda (GPU 0), cuda:N, or strict:N (the strict test device, for tests). Throws naming
// the key and where it was set when the text is no device (load_experiment_config checks this), and,
// with check_available, when the device is not there in this process (a CUDA device in a build
// without CUDA, with no GPU visible, or N beyond the GPUs: core/device.h check_device_available).
Device experiment_device(const Config& cfg, bool check_available = true);

// `matmul_precision` (fp32, bf16: core/matmul_precision.h), made the process's setting. bf16 runs on the
// CPU (and the strict test device, which runs the CPU's kernels) with oneDNN on a CPU with AVX512_BF16 or
// AMX-BF16; anything else throws naming the key, where it was set, and why.
MatmulPrecision apply_matmul_precision(const Config& cfg);

struct TrainOptions {
  int64_t steps = 0;
  double time_budget = 0;     // seconds of updates over the whole run (0: none)
  int64_t grad_accum = 1;
  int64_t eval_every = 0;     // 0: only at the end
  int64_t eval_batches = 20;
  int64_t log_every = 50;
  int64_t checkpoint_every = 0;  // 0: only at the end
  int64_t keep_last = 3;
  int64_t keep_every = 0;
  std::string best_metric;    // empty: the model's primary metric
  std::string nan_policy = "error";
  int64_t max_nan_skips = 10;
  double global_clip = 0;     // global gradient-norm clipping (0: off)
};

OptimizerOptions optimizer_options(const Config& cfg);
ScheduleOptions schedule_options(const Config& cfg);
TrainOptions train_options(const Config& cfg);
// data.eval_batch_size, or data.batch_size when it is 0.
int64_t eval_batch_size(const Config& cfg);
// model.attention → (type, parameters) for the registry.
std::pair<std::string, nn::ParamMap> attention_options(const Config& cfg);

}  // namespace lintra::train
