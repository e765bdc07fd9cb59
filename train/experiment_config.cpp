#include "train/experiment_config.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/error.h"
#include "train/config/bound_section.h"

namespace lintra::train {

namespace {

// The keys of model.attention for one variant, from the registry's parameter specs.
Schema attention_params_schema(const std::string& type) {
  const auto& entry = nn::builtin_attention_registry().entry(type);
  Schema s(entry.doc);
  for (const auto& [name, spec] : entry.params) {
    using T = nn::ParamSpec::Type;
    Field* f = nullptr;
    const bool has_default = spec.default_value.has_value();
    switch (spec.type) {
      case T::integer:
        f = &s.add_int(name, has_default ? std::get<int64_t>(*spec.default_value) : 0, spec.doc);
        break;
      case T::real:
        f = &s.add_double(name, has_default ? std::get<double>(*spec.default_value) : 0.0, spec.doc);
        break;
      case T::boolean:
        f = &s.add_bool(name, has_default ? std::get<bool>(*spec.default_value) : false, spec.doc);
        break;
      case T::string:
        if (!spec.choices.empty()) {
          f = &s.add_enum(name, spec.choices, has_default ? std::get<std::string>(*spec.default_value) : spec.choices[0],
                          spec.doc);
        } else {
          f = &s.add_string(name, has_default ? std::get<std::string>(*spec.default_value) : "", spec.doc);
        }
        break;
    }
    if (spec.type == T::integer || spec.type == T::real) {
      if (std::isfinite(spec.min)) f->min(spec.min);
      if (std::isfinite(spec.max)) f->max(spec.max);
    }
    if (!has_default) f->optional();
  }
  return s;
}

// The optim, schedule and train sections: each key declared once with the options member it fills.
BoundSection<OptimizerOptions> optim_section() {
  using O = OptimizerOptions;
  BoundSection<O> s("the optimizer");
  s.add_enum("name", &O::name, {"sgd", "adam", "radam"}, "radam", "optimizer (radam as the paper's code)");
  s.add_double("lr", &O::lr, 1e-3, "learning rate").greater_than(0);
  s.add_double("beta1", &O::beta1, 0.9, "adam/radam β1").range(0, 0.999999);
  s.add_double("beta2", &O::beta2, 0.999, "adam/radam β2").range(0, 0.999999);
  s.add_double("eps", &O::eps, 1e-8, "adam/radam ε").min(0);
  s.add_double("weight_decay", &O::weight_decay, 0.01, "decoupled weight decay (p ← p − lr·wd·p)").min(0);
  s.add_double("max_grad_norm", &O::max_grad_norm, 1.0, "per-tensor gradient-norm clipping inside the step (0: off)").min(0);
  s.add_double("momentum", &O::momentum, 0.0, "sgd momentum").range(0, 1);
  // Read by the trainer (TrainOptions::global_clip), which clips before the optimizer sees the gradients.
  s.schema().add_double("global_clip", 0.0, "global gradient-norm clipping before the step (0: off)").min(0);
  return s;
}

BoundSection<ScheduleOptions> schedule_section() {
  using S = ScheduleOptions;
  BoundSection<S> s("the learning-rate schedule");
  s.add_enum("name", &S::name, {"constant", "step", "plateau"}, "constant", "schedule");
  s.add_list_int("milestones", &S::milestones, {}, "step: updates after which lr is multiplied by factor").min(1);
  s.add_double("factor", &S::factor, 0.1, "step/plateau: multiplier").greater_than(0).max(1);
  s.add_int("patience", &S::patience, 2, "plateau: evaluations without improvement before a drop").min(0);
  s.add_double("threshold", &S::threshold, 1e-3, "plateau: relative improvement that counts").min(0);
  s.add_string("monitor", &S::monitor, "",
               "plateau: the evaluation metric it watches, lower is better (empty: train.best_metric, else the "
               "model's)");
  s.add_int("warmup_steps", &S::warmup_steps, 0, "linear warm-up updates").min(0);
  return s;
}

BoundSection<TrainOptions> train_section() {
  using T = TrainOptions;
  BoundSection<T> s("the training loop");
  s.add_int("steps", &T::steps, 1000, "optimizer updates in total").min(1);
  s.add_double("time_budget", &T::time_budget, 0.0,
               "seconds of training (updates only: evaluation and checkpointing excluded), over every process of "
               "the run, after which it stops as if it had reached steps (0: no budget)")
      .min(0);
  s.add_int("grad_accum", &T::grad_accum, 1, "batches whose gradients are summed per update").min(1);
  s.add_int("eval_every", &T::eval_every, 0, "evaluate every N updates (0: only at the end)").min(0);
  s.add_int("eval_batches", &T::eval_batches, 20,
            "batches per periodic evaluation (the final evaluation reads the whole eval split)").min(1);
  s.add_int("log_every", &T::log_every, 50, "write a training metrics line every N updates").min(1);
  s.add_int("checkpoint_every", &T::checkpoint_every, 0, "checkpoint every N updates (0: only at the end)").min(0);
  s.add_int("keep_last", &T::keep_last, 3, "newest checkpoints kept").min(1);
  s.add_int("keep_every", &T::keep_every, 0, "also keep checkpoints at multiples of N updates (0: none)").min(0);
  s.add_string("best_metric", &T::best_metric, "", "evaluation metric for best.h5, lower is better (empty: the model's)");
  s.add_enum("nan_policy", &T::nan_policy, {"error", "skip"}, "error",
             "a non-finite loss or gradient: stop, or skip the update");
  s.add_int("max_nan_skips", &T::max_nan_skips, 10, "skip: consecutive skipped updates before stopping").min(1);
  return s;
}

}  // namespace

Schema experiment_schema() {
  Schema top("a lintra training run");
  top.add_string("experiment", "run", "run name: the run directory is runs/<experiment>/<timestamp>");
  top.add_int("seed", 1, "one seed for every generator (init, dropout, hashing, shuffling)").min(0);
  top.add_int("threads", 0, "threads for OpenMP and OpenBLAS (0: all cores)").min(0);
  top.add_enum("matmul_precision", {"fp32", "bf16"}, "fp32",
               "float32 matrix products: fp32, or bf16 operands with float32 sums (about 2x the multiply rate on "
               "CPUs with AVX512_BF16 or AMX; opt-in, CPU only)");
  top.add_string("device", "cpu",
                 "where the run computes: cpu, cuda (GPU 0) or cuda:N (strict:N: the strict test device, for "
                 "tests); checkpoints do not depend on it, so a resumed run may change it");

  Schema data("the data set");
  data.add_enum("name", {"copy", "mnist", "fashion-mnist", "cifar10", "photos32", "espeak-speech", "speech"}, "copy",
                "data set (speech: a corpus made by `lintra data prepare speech`, in data.corpus)");
  data.add_string("root", "", "data cache folder (empty: $LINTRA_DATA, else data/cache)");
  data.add_int("train_size", 0, "training samples (0: the whole split; copy task: sequences generated)").min(0);
  data.add_int("eval_size", 0,
               "evaluation samples: a fixed seeded subset of the split, the same for every run (0: the whole "
               "split; copy task: sequences generated)").min(0);
  data.add_int("max_length", 128, "copy task: sequence length").min(4);
  data.add_enum("corpus_size", {"tiny", "small", "full"}, "small", "espeak-speech: corpus size (lintra data prepare espeak-speech)");
  data.add_string("corpus", "", "speech: prepared corpus folder (relative to the data cache, or absolute)");
  data.add_bool("bucket_by_length", false, "batch utterances of similar length together (speech)");
  data.add_int("batch_size", 64, "sequences per optimizer update (before gradient accumulation)").min(1);
  data.add_int("eval_batch_size", 0, "sequences per evaluation batch (0: batch_size)").min(0);
  data.add_int("prefetch", 2, "batches prepared ahead by a background thread (0: none)").min(0);
  top.add_section("data", data, "what to train on");

  Schema model("the network");
  model.add_enum("type", {"copy", "image", "speech", "bilstm"}, "copy",
                 "model: copy (tokens → next token, 11 symbols), image (pixels → mixture of logistics), "
                 "speech (filterbanks → transformer → CTC over phones) or bilstm (the Bi-LSTM CTC baseline)");
  model.add_int("layers", 4, "transformer layers").min(1);
  model.add_int("heads", 8, "attention heads").min(1);
  model.add_int("d_query", 32, "query/key/value width per head; d_model = heads · d_query").min(1);
  model.add_int("d_ff", 0, "feed-forward width (0: 4 · d_model)").min(0);
  model.add_double("dropout", 0.1, "dropout of the residual and feed-forward paths").range(0, 0.99);
  model.add_enum("activation", {"relu", "gelu"}, "relu", "feed-forward activation");
  model.add_enum("positional", {"concat", "add"}, "concat", "positional encoding: concatenated (the paper's code) or added");
  model.add_bool("pre_norm", false, "pre-LayerNorm layers (the paper's code is post-LayerNorm)");
  model.add_int("mixtures", 10, "image: logistic mixture components per sub-pixel").min(1);
  model.add_int("lstm_hidden", 320, "bilstm: hidden units per direction").min(1);
  model.add_int("lstm_layers", 3, "bilstm: stacked bidirectional layers").min(1);
  model.add_owned_section(
      "attention", "the attention variant and its parameters",
      variant_resolver("type", [] { return nn::builtin_attention_registry().names(); }, "softmax",
                       "attention variant (a registry name)", attention_params_schema));
  top.add_section("model", model, "the network");

  top.add_section("optim", optim_section().schema(), "the optimizer");
  top.add_section("schedule", schedule_section().schema(), "the learning-rate schedule");
  top.add_section("train", train_section().schema(), "the training loop");
  return top;
}

std::string documented_base_config() {
  return schema_to_documented_yaml(
      experiment_schema(),
      "configs/base.yaml — every key of a lintra training config, with its default and what it means.\n"
      "Generated by `lintra config base`; tests/train/test_base_config.cpp keeps it in sync with the schema.\n"
      "model.attention takes the keys of its type: see docs/attention.md and `lintra train ... --print-config`.\n"
      "A key left empty (`layers:`, `layers: null`, `model.layers=`) is an error; `~default` (unquoted) resets a\n"
      "key or a whole section to its default, e.g. `model.layers=~default` undoes what an included file set.");
}

namespace {

// What each model type trains on (factories.cpp builds them): the model's inputs and targets must be
// what the data set's batches hold.
struct ModelData {
  std::vector<std::string> models;
  std::vector<std::string> data;
  const char* reads;
};
const std::vector<ModelData>& model_data_pairs() {
  static const std::vector<ModelData> pairs = {
      {{"copy"}, {"copy"}, "copy-task tokens (11 symbols)"},
      {{"image"}, {"mnist", "fashion-mnist", "cifar10", "photos32"}, "image pixels"},
      {{"speech", "bilstm"}, {"espeak-speech", "speech"}, "filterbank frames with phone targets"}};
  return pairs;
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::string valid_pairs() {
  std::vector<std::string> parts;
  for (const ModelData& p : model_data_pairs())
    parts.push_back(fmt::format("model.type {} with data.name {}", fmt::join(p.models, " or "), fmt::join(p.data, ", ")));
  return fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace

void check_model_fits_data(const Config& cfg) {
  const std::string model = cfg.get_string("model.type"), data = cfg.get_string("data.name");
  for (const ModelData& p : model_data_pairs()) {
    if (!contains(p.models, model)) continue;
    LINTRA_CHECK(contains(p.data, data),
                 "model.type '{}' ({}) cannot train on data.name '{}' ({}): {} models read {}\n  valid pairs: {}",
                 model, cfg.where("model.type"), data, cfg.where("data.name"), model, p.reads, valid_pairs());
    return;
  }
  LINTRA_FAIL("model.type '{}' ({}): no data set is known for it; valid pairs: {}", model, cfg.where("model.type"),
              valid_pairs());
}

void check_experiment_name(const Config& cfg) {
  const std::string name = cfg.get_string("experiment");
  const std::string hint =
      "the run directory is runs/<experiment>/<timestamp>: give a name such as 'copy-softmax' (subfolders with '/' "
      "are fine) or pick the directory with --run-dir";
  LINTRA_CHECK(!name.empty(), "{}: experiment: the name is empty; {}", cfg.where("experiment"), hint);
  const bool control = std::any_of(name.begin(), name.end(), [](char c) { return (unsigned char)c < 0x20 || c == 0x7f; });
  LINTRA_CHECK(!control, "{}: experiment: '{}' holds a control character; {}", cfg.where("experiment"), name, hint);
  const std::filesystem::path p(name);
  bool escapes = p.is_absolute() || name.front() == '/' || name.back() == '/';
  for (const auto& part : p) escapes = escapes || part == ".." || part == "." || part.empty();
  LINTRA_CHECK(!escapes && name.find("//") == std::string::npos,
               "{}: experiment: '{}' would put the run directory outside runs/ (or at an odd path there): no "
               "leading or trailing '/', no empty, '.' or '..' parts; {}",
               cfg.where("experiment"), name, hint);
}

Device experiment_device(const Config& cfg, bool check_available) {
  const std::string text = cfg.get_string("device");
  Device device;
  try {
    device = Device::parse(text);
    if (check_available) check_device_available(device);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}; set `device: cpu` (or device=cpu on the command line) to train on the CPU",
                            cfg.where("device"), e.what()));
  }
  return device;
}

MatmulPrecision apply_matmul_precision(const Config& cfg) {
  const MatmulPrecision p = parse_matmul_precision(cfg.get_string("matmul_precision"));
  try {
    if (p == MatmulPrecision::bf16) {
      const Device device = experiment_device(cfg, /*check_available=*/false);
      LINTRA_CHECK(!device.is_cuda(), "bf16 products run on the CPU only, not on {}", device);
    }
    set_matmul_precision(p);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: matmul_precision: {}", cfg.where("matmul_precision"), e.what()));
  }
  return p;
}

Config load_experiment_config(const std::vector<std::string>& files, const std::vector<std::string>& overrides) {
  Config cfg = load_config(experiment_schema(), files, overrides);
  check_model_fits_data(cfg);
  experiment_device(cfg, /*check_available=*/false);  // a typo fails here; a missing GPU when training starts
  return cfg;
}

OptimizerOptions optimizer_options(const Config& cfg) { return optim_section().read(cfg.section("optim")); }

ScheduleOptions schedule_options(const Config& cfg) {
  ScheduleOptions r = schedule_section().read(cfg.section("schedule"));
  r.base_lr = cfg.get_double("optim.lr");
  return r;
}

TrainOptions train_options(const Config& cfg) {
  TrainOptions r = train_section().read(cfg.section("train"));
  r.global_clip = cfg.get_double("optim.global_clip");
  return r;
}

int64_t eval_batch_size(const Config& cfg) {
  const int64_t n = cfg.get_int("data.eval_batch_size");
  return n > 0 ? n : cfg.get_int("data.batch_size");
}

std::pair<std::string, nn::ParamMap> attention_options(const Config& cfg) {
  Config a = cfg.section("model.attention");
  std::string type = a.has("type") ? a.get_string("type") : "softmax";
  const auto& entry = nn::builtin_attention_registry().entry(type);
  nn::ParamMap params;
  for (const auto& [name, spec] : entry.params) {
    if (!a.has(name)) continue;
    using T = nn::ParamSpec::Type;
    switch (spec.type) {
      case T::integer: params[name] = a.get_int(name); break;
      case T::real: params[name] = a.get_double(name); break;
      case T::boolean: params[name] = a.get_bool(name); break;
      case T::string: params[name] = a.get_string(name); break;
    }
  }
  return {type, params};
}

}  // namespace lintra::train
