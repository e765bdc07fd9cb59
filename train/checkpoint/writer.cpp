// writer.cpp — saving one checkpoint file atomically (format: checkpoint.h): validate the names,
// write step_N.h5.tmp checking every HDF5 return code, mark it complete, fsync, read it back and
// verify every digest, rename, fsync the directory.
#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <set>

#include "train/checkpoint/checkpoint.h"
#include "train/checkpoint/detail.h"
#include "data/files/h5.h"

static_assert(std::endian::native == std::endian::little,
              "checkpoint digests are of little-endian bytes; a big-endian build needs byte swapping");

#ifndef LINTRA_VERSION
#define LINTRA_VERSION "unknown"
#endif

namespace lintra {

namespace fs = std::filesystem;

namespace {

using detail::hex;

// Throws naming `path` unless `name` can be a group or dataset name.
void check_link_name(const std::string& path, const std::string& what, const std::string& name) {
  bool ok = !name.empty() && name != "." && name.find('/') == std::string::npos &&
            name.find('\0') == std::string::npos;
  if (!ok) throw Error(fmt::format("{}: cannot save: {} '{}' is not a valid name (empty, '.', or contains '/')",
                                   path, what, name));
}

// Checks a tree of dotted names: valid parts, no duplicates, no name both a tensor and a module.
void check_tree(const std::string& path, const std::string& what, const NamedTensors& tree) {
  std::set<std::string> names, prefixes;
  for (const auto& [name, t] : tree) {
    for (const auto& part : detail::split_name(name)) check_link_name(path, what + " name part of '" + name + "'", part);
    if (!names.insert(name).second) throw Error(fmt::format("{}: cannot save: {} '{}' appears twice", path, what, name));
    if (!t.defined()) throw Error(fmt::format("{}: cannot save: {} '{}' is an undefined tensor", path, what, name));
    if (t.device() != Device::cpu) {
      throw Error(fmt::format("{}: cannot save: {} '{}' is on {}; copy it to the CPU first", path, what, name,
                              t.device()));
    }
    for (size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1)) {
      prefixes.insert(name.substr(0, dot));
    }
  }
  for (const auto& p : prefixes) {
    if (names.count(p)) throw Error(fmt::format("{}: cannot save: {} '{}' is both a tensor and a module", path, what, p));
  }
}

void validate(const std::string& path, const CheckpointData& d) {
  check_tree(path, "model tensor", d.model);
  std::set<std::string> model_names;
  for (const auto& [name, t] : d.model) model_names.insert(name);
  for (const auto& [slot, tree] : d.optimizer_slots) {
    check_link_name(path, "optimizer slot", slot);
    check_tree(path, "optimizer slot '" + slot + "' tensor", tree);
    for (const auto& [name, t] : tree) {
      if (!model_names.count(name)) {
        throw Error(fmt::format("{}: cannot save: optimizer slot '{}' has tensor '{}', which the model has not",
                                path, slot, name));
      }
    }
  }
  for (const auto& [name, v] : d.optimizer_hparams) {
    if (name.empty() || name == "type" || name == "step") {
      throw Error(fmt::format("{}: cannot save: optimizer hyperparameter name '{}' is reserved", path, name));
    }
  }
  if (d.ranks.empty()) throw Error(fmt::format("{}: cannot save: no rank state (world_size 0)", path));
  for (const RankState& rank : d.ranks)
    for (const auto& [stream, s] : rank.rng) check_link_name(path, "generator stream", stream);
  for (const auto& [name, v] : d.trainer) {
    if (name.empty()) throw Error(fmt::format("{}: cannot save: empty trainer field name", path));
  }
  for (const auto& [name, v] : d.scheduler) {
    if (name.empty()) throw Error(fmt::format("{}: cannot save: empty scheduler field name", path));
  }
  // HDF5 strings end at their first NUL: such a config would read back shorter, failing its digest.
  // to_yaml never writes one (it escapes control characters).
  if (const size_t nul = d.config_yaml.find('\0'); nul != std::string::npos) {
    throw Error(fmt::format("{}: cannot save: the config text holds a NUL byte at offset {}", path, nul));
  }
  if (d.optimizer_type.find('\0') != std::string::npos) {
    throw Error(fmt::format("{}: cannot save: the optimizer type holds a NUL byte", path));
  }
}

std::string utc_now() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// --- writing ---------------------------------------------------------------------------------------

using Digests = std::vector<std::pair<std::string, uint64_t>>;

void write_tensor(const h5::Group& g, const std::string& name, const Tensor& t, Digests& digests) {
  Tensor c = t.contiguous();
  const void* bytes = c.numel() > 0 ? c.raw_data() : nullptr;
  uint64_t digest = XXH3_64bits(bytes, c.nbytes());
  h5::Dataset ds = g.create_dataset(name, c.dtype(), c.shape(), bytes);
  ds.set_attr("xxh3", digest);
  digests.emplace_back(ds.path(), digest);
  ds.close();
}

// Writes a tree of dotted names below `root`, making one group per module path.
void write_tree(const h5::Group& root, const NamedTensors& tree, Digests& digests) {
  std::map<std::string, h5::Group> groups;  // dotted module path -> its group
  for (const auto& [name, t] : tree) {
    std::vector<std::string> parts = detail::split_name(name);
    const h5::Group* parent = &root;
    std::string prefix;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      prefix += (i ? "." : "") + parts[i];
      auto it = groups.find(prefix);
      if (it == groups.end()) it = groups.emplace(prefix, parent->create_group(parts[i])).first;
      parent = &it->second;
    }
    write_tensor(*parent, parts.back(), t, digests);
  }
}

// /rng/rank_<r>/<stream> and /data/rank_<r> for every rank.
void write_rank_states(const h5::File& f, const std::vector<RankState>& ranks) {
  h5::Group rng = f.create_group("rng"), data = f.create_group("data");
  for (size_t r = 0; r < ranks.size(); ++r) {
    const std::string name = fmt::format("rank_{}", r);
    h5::Group rank_rng = rng.create_group(name);
    for (const auto& [stream, s] : ranks[r].rng) {
      h5::Group g = rank_rng.create_group(stream);
      g.set_attr("seed", s.seed);
      g.set_attr("stream", s.stream);
      g.set_attr("offset", s.offset);
    }
    h5::Group rank_data = data.create_group(name);
    rank_data.set_attr("epoch", ranks[r].data.epoch);
    rank_data.set_attr("position", ranks[r].data.position);
    rank_data.set_attr("shuffle_seed", ranks[r].data.shuffle_seed);
  }
}

// Everything but `complete`; returns the file digest it wrote.
uint64_t write_contents(const h5::File& f, const CheckpointData& d) {
  f.set_attr("format", kCheckpointFormat);
  f.set_attr("format_version", kCheckpointFormatVersion);
  f.set_attr("lintra_version", LINTRA_VERSION);
  f.set_attr("created_utc", utc_now());
  f.set_attr("global_step", d.global_step);
  f.set_attr("epoch", d.epoch);
  f.set_attr("world_size", d.world_size());

  Digests digests;
  {
    h5::Dataset config = f.write_string("config", d.config_yaml);
    uint64_t digest = XXH3_64bits(d.config_yaml.data(), d.config_yaml.size());
    config.set_attr("xxh3", digest);
    digests.emplace_back(config.path(), digest);
    config.close();
  }
  write_tree(f.create_group("model"), d.model, digests);

  h5::Group optimizer = f.create_group("optimizer");
  optimizer.set_attr("type", d.optimizer_type);
  optimizer.set_attr("step", d.optimizer_step);
  for (const auto& [name, v] : d.optimizer_hparams) optimizer.set_attr(name, v);
  for (const auto& [slot, tree] : d.optimizer_slots) write_tree(optimizer.create_group(slot), tree, digests);

  h5::Group scheduler = f.create_group("scheduler");
  for (const auto& [name, v] : d.scheduler) scheduler.set_attr(name, v);

  write_rank_states(f, d.ranks);

  h5::Group trainer = f.create_group("trainer");
  for (const auto& [name, v] : d.trainer) trainer.set_attr(name, v);
  if (!d.loss_history.empty()) {
    write_tensor(trainer, "loss_history",
                 Tensor::from_vector(d.loss_history, {int64_t(d.loss_history.size())}), digests);
  }

  uint64_t digest = detail::file_digest(digests);
  f.set_attr("file_digest_xxh3", digest);
  return digest;
}

void fsync_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(fmt::format("{}: cannot open to fsync: {}", path, std::strerror(errno)));
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) throw Error(fmt::format("{}: fsync failed: {}", path, std::strerror(err)));
}

// --- reading ---------------------------------------------------------------------------------------

}  // namespace

void save_checkpoint(const std::string& path, const CheckpointData& data) {
  h5::silence_hdf5_errors();
  validate(path, data);
  const std::string tmp = path + ".tmp";
  std::error_code ec;
  fs::remove(tmp, ec);  // a leftover of an interrupted save of this same file
  try {
    uint64_t digest = 0;
    {
      h5::File f = h5::File::create(tmp);
      digest = write_contents(f, data);
      f.flush();
      f.set_attr("complete", int64_t(1));  // last: a file without it was not finished
      f.flush();
      f.close();
    }
    fsync_file(tmp);
    detail::ReadResult back = detail::read_checkpoint(tmp, /*keep_data=*/false);
    if (!back.problems.empty()) {
      throw Error("verification after writing failed: " + detail::problems_message(back.problems));
    }
    if (back.file_digest != digest) {
      throw Error(fmt::format("{}: verification after writing failed: file digest {} read back as {}", tmp,
                              hex(digest), hex(back.file_digest)));
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
      throw Error(fmt::format("cannot rename {} to {}: {}", tmp, path, std::strerror(errno)));
    }
  } catch (const std::exception& e) {
    fs::remove(tmp, ec);
    throw Error(fmt::format("{}: checkpoint not saved: {}", path, e.what()));
  }
  fs::path parent = fs::path(path).parent_path();
  fsync_directory(parent.empty() ? "." : parent.string());
}

}  // namespace lintra
