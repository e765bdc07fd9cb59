// reader.cpp — reading and verifying one checkpoint file (format: checkpoint.h): its identity
// (format, version, complete), every tensor against its digest, the optimizer trees against the
// model's, and the file digest over every dataset.
#include <xxhash.h>

#include <algorithm>
#include <set>

#include "train/checkpoint/checkpoint.h"
#include "train/checkpoint/detail.h"
#include "data/files/h5.h"

namespace lintra {

namespace {

using detail::hex;
using Digests = std::vector<std::pair<std::string, uint64_t>>;

struct Reader {
  std::string path;
  int64_t file_size = 0;
  bool keep_data = true;  // false: tensors are checked in a scratch buffer and come back undefined
  std::vector<std::string> problems;  // digest mismatches: reading goes on
  int64_t datasets = 0;
  int64_t bytes = 0;
  int64_t model_params = 0;
  int64_t model_bytes = 0;
  std::vector<unsigned char> scratch;

  // Reads a dataset as a tensor and checks its digest.
  Tensor read_tensor(const h5::Dataset& ds, bool keep) {
    DType dtype = ds.dtype();
    Shape shape = ds.shape();
    int64_t numel = 1;
    for (int64_t dim : shape) {
      if (dim == 0) { numel = 0; break; }
      if (dim < 0 || numel > file_size / dim) {
        throw Error(fmt::format("{}: tensor {}: shape {} is larger than the file ({} bytes)", path, ds.path(),
                                shape_str(shape), file_size));
      }
      numel *= dim;
    }
    if (numel > 0 && numel > file_size / int64_t(dtype_size(dtype))) {
      throw Error(fmt::format("{}: tensor {}: {}{} is larger than the file ({} bytes)", path, ds.path(), dtype,
                              shape_str(shape), file_size));
    }
    size_t nbytes = size_t(numel) * dtype_size(dtype);
    Tensor t;
    void* out = nullptr;
    if (keep) {
      t = Tensor::empty(shape, dtype);
      out = numel > 0 ? t.raw_data() : nullptr;
    } else if (numel > 0) {
      scratch.resize(std::max(scratch.size(), nbytes));
      out = scratch.data();
    }
    ds.read(dtype, out, numel);
    check_digest(ds, out, nbytes, "tensor");
    if (ds.path().rfind("/model/", 0) == 0) model_params += numel, model_bytes += int64_t(nbytes);
    return t;
  }

  void check_digest(const h5::Dataset& ds, const void* data, size_t nbytes, const char* what) {
    uint64_t stored = ds.attr_u64("xxh3");
    uint64_t computed = XXH3_64bits(data, nbytes);
    ++datasets;
    bytes += int64_t(nbytes);
    if (stored != computed) {
      problems.push_back(fmt::format("{}: {} {}: digest mismatch (stored {}, computed {})", path, what, ds.path(),
                                     hex(stored), hex(computed)));
    }
  }

  void read_tree(const h5::Group& g, const std::string& prefix, NamedTensors& out) {
    for (const auto& name : g.children()) {
      std::string dotted = prefix.empty() ? name : prefix + "." + name;
      switch (g.kind_of(name)) {
        case h5::LinkKind::group: read_tree(g.open_group(name), dotted, out); break;
        case h5::LinkKind::dataset: out.emplace_back(dotted, read_tensor(g.open_dataset(name), keep_data)); break;
        default: g.fail(fmt::format("{}: neither a group nor a dataset", name));
      }
    }
  }

  std::map<std::string, double> read_double_attrs(const h5::Object& obj, const std::set<std::string>& skip) {
    std::map<std::string, double> out;
    for (const auto& name : obj.attr_names()) {
      if (!skip.count(name)) out[name] = obj.attr_f64(name);
    }
    return out;
  }
};

// Every dataset's path and stored digest, for the file digest.
void list_datasets(const h5::Group& g, Digests& out) {
  for (const auto& name : g.children()) {
    switch (g.kind_of(name)) {
      case h5::LinkKind::group: list_datasets(g.open_group(name), out); break;
      case h5::LinkKind::dataset: {
        h5::Dataset ds = g.open_dataset(name);
        out.emplace_back(ds.path(), ds.attr_u64("xxh3"));
        break;
      }
      default: break;
    }
  }
}

}  // namespace

namespace detail {

namespace {

// The identity attributes decide whether anything else is worth reading.
void check_identity(const h5::File& f, const std::string& path) {
  if (!f.has_attr("format")) {
    throw Error(fmt::format("{}: not a lintra checkpoint (no attribute 'format' at the root)", path));
  }
  std::string format = f.attr_str("format");
  if (format != kCheckpointFormat) {
    throw Error(fmt::format("{}: not a lintra checkpoint (attribute 'format' is '{}', expected '{}')", path, format,
                            kCheckpointFormat));
  }
  int64_t version = f.attr_i64("format_version");
  if (version > kCheckpointFormatVersion) {
    throw Error(fmt::format("{}: written by a newer lintra (format_version {} > {}); upgrade lintra to read it",
                            path, version, kCheckpointFormatVersion));
  }
  if (version < 1) throw Error(fmt::format("{}: attribute 'format_version' is {}: not a valid version", path, version));
  if (!f.has_attr("complete") || f.attr_i64("complete") != 1) {
    throw Error(fmt::format("{}: incomplete checkpoint (attribute 'complete' is {}): its save did not finish", path,
                            f.has_attr("complete") ? std::to_string(f.attr_i64("complete")) : "missing"));
  }
}

void read_root_attrs(const h5::File& f, ReadResult& result) {
  CheckpointData& d = result.data;
  d.lintra_version = f.attr_str("lintra_version");
  d.created_utc = f.attr_str("created_utc");
  d.global_step = f.attr_i64("global_step");
  d.epoch = f.attr_i64("epoch");
  const int64_t world_size = f.attr_i64("world_size");
  if (world_size < 1 || world_size > 1 << 20) f.fail(fmt::format("attribute 'world_size' is {}: not a number of ranks", world_size));
  d.ranks.assign(size_t(world_size), RankState{});
  result.file_digest = f.attr_u64("file_digest_xxh3");
}

void read_config(const h5::File& f, Reader& r, CheckpointData& d) {
  h5::Dataset config = f.open_dataset("config");
  d.config_yaml = config.read_string();
  r.check_digest(config, d.config_yaml.data(), d.config_yaml.size(), "dataset");
}

void read_optimizer(const h5::File& f, Reader& r, CheckpointData& d) {
  h5::Group optimizer = f.open_group("optimizer");
  d.optimizer_type = optimizer.attr_str("type");
  d.optimizer_step = optimizer.attr_i64("step");
  d.optimizer_hparams = r.read_double_attrs(optimizer, {"type", "step"});
  for (const auto& slot : optimizer.children()) r.read_tree(optimizer.open_group(slot), "", d.optimizer_slots[slot]);
}

// /rng/rank_<r> and /data/rank_<r> of every rank the root's world_size counts.
void read_rank_states(const h5::File& f, CheckpointData& d) {
  h5::Group rng = f.open_group("rng"), data = f.open_group("data");
  for (size_t r = 0; r < d.ranks.size(); ++r) {
    const std::string name = fmt::format("rank_{}", r);
    h5::Group rank_rng = rng.open_group(name);
    for (const auto& stream : rank_rng.children()) {
      h5::Group g = rank_rng.open_group(stream);
      d.ranks[r].rng[stream] = GeneratorState{g.attr_u64("seed"), g.attr_u64("stream"), g.attr_u64("offset")};
    }
    h5::Group rank_data = data.open_group(name);
    d.ranks[r].data =
        DataPosition{rank_data.attr_i64("epoch"), rank_data.attr_i64("position"), rank_data.attr_u64("shuffle_seed")};
  }
}

// /scheduler, /rng, /data and /trainer: the state around the model and the optimizer.
void read_loop_state(const h5::File& f, Reader& r, CheckpointData& d) {
  d.scheduler = r.read_double_attrs(f.open_group("scheduler"), {});
  read_rank_states(f, d);
  h5::Group trainer = f.open_group("trainer");
  d.trainer = r.read_double_attrs(trainer, {});
  if (trainer.has("loss_history")) {
    h5::Dataset ds = trainer.open_dataset("loss_history");
    if (ds.dtype() != DType::f64 || ds.shape().size() != 1) {
      ds.fail(fmt::format("expected float64[n], found {}{}", ds.dtype(), shape_str(ds.shape())));
    }
    d.loss_history = r.read_tensor(ds, true).to_vector<double>();
  }
}

// The optimizer's trees mirror the model's: a slot tensor without its model tensor means the model
// tensor is missing (this names it, where the file digest cannot).
void check_slot_trees(const CheckpointData& d, const std::string& path, std::vector<std::string>& problems) {
  std::set<std::string> model_names;
  for (const auto& [name, t] : d.model) model_names.insert(name);
  for (const auto& [slot, tree] : d.optimizer_slots) {
    for (const auto& [name, t] : tree) {
      if (!model_names.count(name)) {
        problems.push_back(fmt::format("{}: tensor {}: missing (optimizer slot tensor {} exists)", path,
                                       dotted_to_path("/model", name), dotted_to_path("/optimizer/" + slot, name)));
      }
    }
  }
}

void check_file_digest(const h5::File& f, const std::string& path, uint64_t stored, std::vector<std::string>& problems) {
  Digests all;
  list_datasets(f, all);
  uint64_t computed = file_digest(all);
  if (computed != stored) {
    problems.push_back(fmt::format(
        "{}: attribute 'file_digest_xxh3': mismatch (stored {}, computed {} over {} datasets): a dataset was "
        "removed, added or renamed since the save",
        path, hex(stored), hex(computed), all.size()));
  }
}

}  // namespace

ReadResult read_checkpoint(const std::string& path, bool keep_data) {
  h5::silence_hdf5_errors();
  ReadResult result;
  CheckpointData& d = result.data;
  d.source_path = path;
  h5::File f = h5::File::open(path);
  Reader r;
  r.path = path;
  r.file_size = f.size();
  r.keep_data = keep_data;
  check_identity(f, path);
  read_root_attrs(f, result);
  read_config(f, r, d);
  r.read_tree(f.open_group("model"), "", d.model);
  read_optimizer(f, r, d);
  read_loop_state(f, r, d);
  check_slot_trees(d, path, r.problems);
  check_file_digest(f, path, result.file_digest, r.problems);
  result.problems = std::move(r.problems);
  result.datasets = r.datasets;
  result.bytes = r.bytes;
  result.model_params = r.model_params;
  result.model_bytes = r.model_bytes;
  return result;
}

}  // namespace detail

CheckpointData load_checkpoint(const std::string& path) {
  detail::ReadResult r = detail::read_checkpoint(path, /*keep_data=*/true);
  if (!r.problems.empty()) throw Error(detail::problems_message(r.problems));
  return std::move(r.data);
}

VerifyReport verify_checkpoint(const std::string& path) {
  VerifyReport report;
  try {
    detail::ReadResult r = detail::read_checkpoint(path, /*keep_data=*/false);
    report.problems = std::move(r.problems);
    report.datasets_checked = r.datasets;
    report.bytes_checked = r.bytes;
    report.file_digest = r.file_digest;
    report.global_step = r.data.global_step;
  } catch (const Error& e) {
    report.problems.push_back(e.what());
  } catch (const std::exception& e) {
    report.problems.push_back(fmt::format("{}: {}", path, e.what()));
  }
  report.ok = report.problems.empty();
  return report;
}

}  // namespace lintra
