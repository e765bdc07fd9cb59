#include "train/evaluate.h"

#include <fmt/ranges.h>

#include <algorithm>

#include "autograd/node.h"
#include "data/loader.h"
#include "nn/models/image_engine_score.h"
#include "train/experiment_config.h"
#include "train/distributed/reduce.h"
#include "train/factories.h"
#include "train/train_state.h"

namespace lintra::train {

Config config_from_checkpoint(const CheckpointData& c) {
  LINTRA_CHECK(!c.config_yaml.empty(), "{}: the checkpoint holds no /config", c.source_path);
  return validate_section(parse_config(c.config_yaml, c.source_path + ":/config"), experiment_schema());
}

void load_model_weights(nn::Model& model, const CheckpointData& c) {
  std::vector<std::pair<std::string, TensorSpec>> expected;
  for (const auto& [name, v] : model.named_parameters()) expected.push_back({name, {v.shape(), v.dtype()}});
  CheckpointData model_only = c;
  model_only.optimizer_slots.clear();
  std::vector<std::string> problems = check_against(model_only, expected);
  LINTRA_CHECK(problems.empty(), "{}: the checkpoint does not match the model ({} problems):\n  {}", c.source_path,
               problems.size(), fmt::join(problems, "\n  "));
  copy_parameters(model, c);
}

Device command_device(const Config& cfg, const std::string& requested, const std::string& command) {
  const std::string text = requested.empty() ? cfg.get_string("device") : requested;
  const std::string from = requested.empty() ? "the checkpoint's config" : "--device";
  try {
    const Device device = Device::parse(text);
    check_device_available(device);
    return device;
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {} (device {} from {}); give --device cpu to run on the CPU", command, e.what(), text,
                            from));
  }
}

namespace {

// The split in order, in batches of min(batch_size, split size), without shuffling or prefetching.
data::DataLoader evaluation_loader(const data::Dataset& split, int64_t batch_size) {
  data::LoaderOptions lo;
  lo.batch_size = std::min(batch_size, split.size());
  lo.shuffle = false;
  lo.prefetch = 0;
  return data::DataLoader(split, lo);
}

// What will be evaluated: the first max_batches batches (0: all).
Evaluation evaluation_extent(data::DataLoader& loader, int64_t max_batches) {
  Evaluation e;
  e.batch_size = loader.options().batch_size;
  e.batches = max_batches > 0 ? std::min(max_batches, loader.batches_per_epoch()) : loader.batches_per_epoch();
  return e;
}

}  // namespace

Evaluation evaluate_model(nn::Model& model, const data::Dataset& split, int64_t batch_size, int64_t max_batches,
                          dist::Communicator& comm) {
  NoGradGuard no_grad;
  model.eval();
  data::DataLoader loader = evaluation_loader(split, batch_size);
  Evaluation e = evaluation_extent(loader, max_batches);
  const Device device = model.device();
  nn::MetricSums sums;
  for (int64_t b = comm.rank(); b < e.batches; b += comm.size()) {
    if (comm.size() > 1) loader.seek({0, b});
    nn::accumulate_sums(sums, model.loss(to_model_batch(loader.next()).to(device)).sums);
  }
  model.train();
  sums = dist::sum_named(comm, sums);
  e.metrics = model.summarize(sums);
  return e;
}

Evaluation evaluate_on_engine(nn::Model& model, const data::Dataset& split, int64_t batch_size, int64_t max_batches,
                              nn::EngineWeights weights) {
  auto* image = dynamic_cast<nn::ImageModel*>(&model);
  LINTRA_CHECK(image != nullptr, "--engine: only image models have the compiled recurrent engine, this is a {}",
               model.type_name());
  const std::string why = nn::ImageRecurrentEngine::unsupported_reason(*image);
  LINTRA_CHECK(why.empty(), "--engine: the engine cannot run this model: {}", why);
  data::DataLoader loader = evaluation_loader(split, batch_size);
  Evaluation e = evaluation_extent(loader, max_batches);
  nn::MetricSums sums;
  for (int64_t b = 0; b < e.batches; ++b)
    nn::accumulate_sums(sums, nn::engine_nll_sums(*image, to_model_batch(loader.next()).inputs, weights));
  e.metrics = model.summarize(sums);
  return e;
}

int run_eval(const EvalCommand& cmd) {
  CheckpointData c = load_checkpoint(cmd.checkpoint);
  Config cfg = config_from_checkpoint(c);
  const Device device = command_device(cfg, cmd.device, "eval");
  std::shared_ptr<nn::Model> model = build_model(cfg);
  load_model_weights(*model, c);
  model->to(device);
  DataSplits splits = build_data(cfg, /*with_test=*/true);
  const bool engine = !cmd.engine.empty();
  LINTRA_CHECK(!engine || device.is_cpu(), "eval --engine: the compiled engine is CPU code; give --device cpu");
  const Evaluation e =
      engine ? evaluate_on_engine(*model, *splits.test, eval_batch_size(cfg), cmd.max_batches,
                                  cmd.engine == "bf16" ? nn::EngineWeights::bf16 : nn::EngineWeights::f32)
             : evaluate_model(*model, *splits.test, eval_batch_size(cfg), cmd.max_batches);
  fmt::print("{} (step {}), {} on {} batches of {} on {}{}:\n", cmd.checkpoint, c.global_step, splits.test->name(),
             e.batches, e.batch_size, device,
             engine ? fmt::format(", token by token on the recurrent engine with {} weights", cmd.engine) : "");
  for (const auto& [k, v] : e.metrics) fmt::print("  {:<14} {:.6f}\n", k, v);
  return 0;
}

}  // namespace lintra::train
