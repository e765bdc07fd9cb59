#include "train/train_state.h"

#include <fmt/ranges.h>

#include <map>

namespace lintra::train {

CheckpointData collect_checkpoint(const nn::Model& model, const Optimizer& opt, const Schedule& sched,
                                  const data::DataLoader& loader, const TrainState& st, const std::string& yaml,
                                  uint64_t seed) {
  CheckpointData c;
  c.global_step = st.step;
  c.epoch = loader.position().epoch;
  c.config_yaml = yaml;
  // Checkpoints hold CPU tensors whatever the model's device: saved runs resume on any device.
  for (const auto& [name, v] : model.named_parameters()) c.model.emplace_back(name, v.data().cpu());
  c.optimizer_type = opt.type();
  c.optimizer_hparams = opt.hparams();
  c.optimizer_step = opt.step_count();
  for (const auto& [slot, tensors] : opt.state())
    for (const auto& [name, t] : tensors) c.optimizer_slots[slot].emplace_back(name, t.cpu());
  c.scheduler = sched.state();
  for (const auto& [name, gen] : model.named_generators()) c.rng["model." + name] = gen->state();
  c.data = {loader.position().epoch, loader.position().batch_index, seed};
  c.trainer = {{"best", st.best}, {"nan_skips", double(st.nan_skips)}, {"wall_time", st.wall_time},
               {"train_seconds", st.train_seconds}};
  c.loss_history = st.loss_history;
  return c;
}

void copy_parameters(nn::Model& model, const CheckpointData& c) {
  std::map<std::string, Tensor> by_name(c.model.begin(), c.model.end());
  for (const auto& [name, v] : model.named_parameters()) {
    Tensor t = v.data();  // a handle on the parameter's storage, on the model's device
    t.copy_(by_name.at(name));  // from the checkpoint's CPU tensor: an explicit copy to that device
  }
}

namespace {

// Every parameter (and optimizer slot) and generator the model needs, against the checkpoint.
void check_matches(const CheckpointData& c, const nn::Model& model) {
  std::vector<std::pair<std::string, TensorSpec>> expected;
  for (const auto& [name, v] : model.named_parameters()) expected.push_back({name, {v.shape(), v.dtype()}});
  std::vector<std::string> problems = check_against(c, expected);
  for (const auto& [name, gen] : model.named_generators())
    if (!c.rng.count("model." + name)) problems.push_back(fmt::format("{}: generator model.{} is missing", c.source_path, name));
  LINTRA_CHECK(problems.empty(), "{}: the checkpoint does not match the model ({} problems):\n  {}", c.source_path,
               problems.size(), fmt::join(problems, "\n  "));
}

double value_or(const std::map<std::string, double>& m, const char* key, double fallback) {
  auto it = m.find(key);
  return it != m.end() ? it->second : fallback;
}

}  // namespace

void restore_checkpoint(const CheckpointData& c, nn::Model& model, Optimizer& opt, Schedule& sched,
                        data::DataLoader& loader, TrainState& st) {
  check_matches(c, model);
  copy_parameters(model, c);
  std::map<std::string, std::vector<std::pair<std::string, Tensor>>> slots(c.optimizer_slots.begin(),
                                                                           c.optimizer_slots.end());
  opt.load_state(c.optimizer_step, slots);
  sched.load_state(c.scheduler);
  for (const auto& [name, gen] : model.named_generators()) gen->set_state(c.rng.at("model." + name));
  loader.seek({c.data.epoch, c.data.position});
  st.step = c.global_step;
  st.best = value_or(c.trainer, "best", INFINITY);
  st.nan_skips = int64_t(value_or(c.trainer, "nan_skips", 0));
  st.wall_time = value_or(c.trainer, "wall_time", 0);
  st.train_seconds = value_or(c.trainer, "train_seconds", 0);  // 0 in checkpoints written before it existed
  st.loss_history = c.loss_history;
}

}  // namespace lintra::train
