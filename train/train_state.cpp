#include "train/train_state.h"

#include <fmt/ranges.h>

#include <map>

namespace lintra::train {

namespace {

constexpr int kRankStreamShift = 32;  // rank r's streams: the model's + r·2³²

}  // namespace

RankState rank_state(const nn::Model& model, const data::DataLoader& loader, uint64_t seed) {
  RankState r;
  for (const auto& [name, gen] : model.named_generators()) r.rng["model." + name] = gen->state();
  r.data = {loader.position().epoch, loader.position().batch_index, seed};
  return r;
}

void use_rank_streams(nn::Model& model, int64_t rank) {
  for (const auto& [name, gen] : model.named_generators()) {
    GeneratorState s = gen->state();
    s.stream += uint64_t(rank) << kRankStreamShift;
    gen->set_state(s);
  }
}

CheckpointData collect_checkpoint(const nn::Model& model, const Optimizer& opt, const Schedule& sched,
                                  const TrainState& st, const std::string& yaml, std::vector<RankState> ranks) {
  CheckpointData c;
  c.global_step = st.step;
  c.epoch = ranks.at(0).data.epoch;
  c.config_yaml = yaml;
  // Checkpoints hold CPU tensors whatever the model's device: saved runs resume on any device.
  for (const auto& [name, v] : model.named_parameters()) c.model.emplace_back(name, v.data().cpu());
  c.optimizer_type = opt.type();
  c.optimizer_hparams = opt.hparams();
  c.optimizer_step = opt.step_count();
  for (const auto& [slot, tensors] : opt.state())
    for (const auto& [name, t] : tensors) c.optimizer_slots[slot].emplace_back(name, t.cpu());
  c.scheduler = sched.state();
  c.ranks = std::move(ranks);
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

// The generators rank `rank` restores: its own, or (a rank the saved run did not have) rank 0's on
// this rank's streams.
std::map<std::string, GeneratorState> generators_of(const CheckpointData& c, int64_t rank) {
  if (rank < c.world_size()) return c.ranks[size_t(rank)].rng;
  std::map<std::string, GeneratorState> rng = c.ranks[0].rng;
  for (auto& [name, s] : rng) s.stream += uint64_t(rank) << kRankStreamShift;
  return rng;
}

// Every parameter (and optimizer slot) and generator the model needs, against the checkpoint.
void check_matches(const CheckpointData& c, const nn::Model& model, int64_t rank) {
  std::vector<std::pair<std::string, TensorSpec>> expected;
  for (const auto& [name, v] : model.named_parameters()) expected.push_back({name, {v.shape(), v.dtype()}});
  std::vector<std::string> problems = check_against(c, expected);
  const std::map<std::string, GeneratorState> rng = generators_of(c, rank);
  for (const auto& [name, gen] : model.named_generators())
    if (!rng.count("model." + name)) problems.push_back(fmt::format("{}: generator model.{} is missing", c.source_path, name));
  LINTRA_CHECK(problems.empty(), "{}: the checkpoint does not match the model ({} problems):\n  {}", c.source_path,
               problems.size(), fmt::join(problems, "\n  "));
}

double value_or(const std::map<std::string, double>& m, const char* key, double fallback) {
  auto it = m.find(key);
  return it != m.end() ? it->second : fallback;
}

// Moves the loader to where the saved run's data ends; says how when the world size changed.
std::string restore_position(const CheckpointData& c, data::DataLoader& loader) {
  const DataPosition& saved = c.ranks[0].data;
  const data::Reshard r = loader.reshard({saved.epoch, saved.position}, c.world_size());
  loader.seek(r.position);
  const int64_t K = loader.options().world_size, B = loader.options().batch_size;
  if (c.world_size() == K) return {};
  return fmt::format(
      "the checkpoint was written by {} rank{}, this run has {}: the data is re-sharded (global batch {} × {} → {} × {} "
      "samples); {} samples of epoch {} were done, this run continues at {}{}",
      c.world_size(), c.world_size() == 1 ? "" : "s", K, c.world_size(), B, K, B, r.done, saved.epoch,
      r.position.to_string(),
      r.exact ? fmt::format(" ({} samples skipped, the rest of the epoch in the same order)", r.skipped)
              : " (bucket_by_length: batches of another size group other samples, so the rest of the epoch is not "
                "exactly the samples the saved run had left)");
}

}  // namespace

std::string restore_checkpoint(const CheckpointData& c, nn::Model& model, Optimizer& opt, Schedule& sched,
                               data::DataLoader& loader, TrainState& st) {
  const int64_t rank = loader.options().rank;
  check_matches(c, model, rank);
  copy_parameters(model, c);
  std::map<std::string, std::vector<std::pair<std::string, Tensor>>> slots(c.optimizer_slots.begin(),
                                                                           c.optimizer_slots.end());
  opt.load_state(c.optimizer_step, slots);
  sched.load_state(c.scheduler);
  const std::map<std::string, GeneratorState> rng = generators_of(c, rank);
  for (const auto& [name, gen] : model.named_generators()) gen->set_state(rng.at("model." + name));
  const std::string note = restore_position(c, loader);
  st.step = c.global_step;
  st.best = value_or(c.trainer, "best", INFINITY);
  st.nan_skips = int64_t(value_or(c.trainer, "nan_skips", 0));
  st.wall_time = value_or(c.trainer, "wall_time", 0);
  st.train_seconds = value_or(c.trainer, "train_seconds", 0);  // 0 in checkpoints written before it existed
  st.loss_history = c.loss_history;
  return note;
}

}  // namespace lintra::train
