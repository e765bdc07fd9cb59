#include "train/checkpoint_exchange.h"

#include "train/distributed/bytes.h"

namespace lintra::train {

namespace {

using dist::ByteReader;
using dist::ByteWriter;

void put_tensors(ByteWriter& w, const NamedTensors& tensors) {
  w.put(int64_t(tensors.size()));
  for (const auto& [name, t] : tensors) {
    const Tensor c = t.to(Device::cpu).contiguous();
    w.put_string(name).put(uint8_t(c.dtype())).put(int64_t(c.shape().size()));
    for (int64_t d : c.shape()) w.put(d);
    w.put_raw(c.numel() > 0 ? c.raw_data() : nullptr, c.nbytes());
  }
}

NamedTensors get_tensors(ByteReader& r) {
  NamedTensors out;
  for (int64_t i = 0, n = r.get<int64_t>(); i < n; ++i) {
    std::string name = r.get_string();
    const auto dtype = DType(r.get<uint8_t>());
    Shape shape(size_t(r.get<int64_t>()));
    for (int64_t& d : shape) d = r.get<int64_t>();
    Tensor t = Tensor::empty(shape, dtype);
    r.get_raw(t.numel() > 0 ? t.raw_data() : nullptr, t.nbytes());
    out.emplace_back(std::move(name), std::move(t));
  }
  return out;
}

template <typename V> void put_map(ByteWriter& w, const std::map<std::string, V>& m) {
  w.put(int64_t(m.size()));
  for (const auto& [k, v] : m) w.put_string(k).put(v);
}

template <typename V> std::map<std::string, V> get_map(ByteReader& r) {
  std::map<std::string, V> m;
  for (int64_t i = 0, n = r.get<int64_t>(); i < n; ++i) {
    std::string k = r.get_string();
    m[k] = r.get<V>();
  }
  return m;
}

std::string encode(const CheckpointData& c) {
  ByteWriter w;
  w.put(c.global_step).put(c.epoch);
  w.put_string(c.config_yaml).put_string(c.lintra_version).put_string(c.created_utc).put_string(c.source_path);
  put_tensors(w, c.model);
  w.put_string(c.optimizer_type).put(c.optimizer_step);
  put_map(w, c.optimizer_hparams);
  w.put(int64_t(c.optimizer_slots.size()));
  for (const auto& [slot, tensors] : c.optimizer_slots) {
    w.put_string(slot);
    put_tensors(w, tensors);
  }
  put_map(w, c.scheduler);
  w.put(int64_t(c.ranks.size()));
  for (const RankState& rank : c.ranks) {
    put_map(w, rank.rng);
    w.put(rank.data);
  }
  put_map(w, c.trainer);
  w.put(int64_t(c.loss_history.size())).put_raw(c.loss_history.data(), c.loss_history.size() * sizeof(double));
  return w.take();
}

CheckpointData decode(const std::string& bytes) {
  ByteReader r(bytes, "the checkpoint rank 0 sent");
  CheckpointData c;
  c.global_step = r.get<int64_t>();
  c.epoch = r.get<int64_t>();
  c.config_yaml = r.get_string();
  c.lintra_version = r.get_string();
  c.created_utc = r.get_string();
  c.source_path = r.get_string();
  c.model = get_tensors(r);
  c.optimizer_type = r.get_string();
  c.optimizer_step = r.get<int64_t>();
  c.optimizer_hparams = get_map<double>(r);
  for (int64_t i = 0, n = r.get<int64_t>(); i < n; ++i) {
    std::string slot = r.get_string();
    c.optimizer_slots[slot] = get_tensors(r);
  }
  c.scheduler = get_map<double>(r);
  c.ranks.resize(size_t(r.get<int64_t>()));
  for (RankState& rank : c.ranks) {
    rank.rng = get_map<GeneratorState>(r);
    rank.data = r.get<DataPosition>();
  }
  c.trainer = get_map<double>(r);
  c.loss_history.resize(size_t(r.get<int64_t>()));
  r.get_raw(c.loss_history.data(), c.loss_history.size() * sizeof(double));
  return c;
}

}  // namespace

std::vector<RankState> gather_rank_states(dist::Communicator& comm, const RankState& mine) {
  ByteWriter w;
  put_map(w, mine.rng);
  w.put(mine.data);
  std::vector<RankState> all;
  for (const std::string& bytes : comm.all_gather(w.bytes())) {
    ByteReader r(bytes, "a rank's generators and loader position");
    RankState state;
    state.rng = get_map<GeneratorState>(r);
    state.data = r.get<DataPosition>();
    all.push_back(std::move(state));
  }
  return all;
}

std::optional<CheckpointData> share_checkpoint(dist::Communicator& comm, std::optional<CheckpointData> c) {
  if (comm.size() == 1) return c;
  std::string bytes = comm.is_root() && c ? encode(*c) : std::string();
  comm.broadcast(bytes, 0);
  if (comm.is_root() || bytes.empty()) return c;
  return decode(bytes);
}

}  // namespace lintra::train
