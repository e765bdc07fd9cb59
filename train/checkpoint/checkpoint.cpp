// checkpoint.cpp — writing, reading and verifying one checkpoint file (format: checkpoint.h).
//
// Not here: check_against, the run directory (CheckpointManager), describe/diff — see
// checkpoint_tools.cpp.
#include "train/checkpoint/checkpoint.h"

#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <set>

#include "train/checkpoint/detail.h"
#include "data/files/h5.h"

static_assert(std::endian::native == std::endian::little,
              "checkpoint digests are of little-endian bytes; a big-endian build needs byte swapping");

#ifndef LINTRA_VERSION
#define LINTRA_VERSION "unknown"
#endif

namespace lintra {

namespace fs = std::filesystem;

// --- digests, names --------------------------------------------------------------------------------

namespace detail {

uint64_t file_digest(std::vector<std::pair<std::string, uint64_t>> entries) {
  std::sort(entries.begin(), entries.end());
  std::string buffer;
  for (const auto& [path, digest] : entries) {
    buffer += path;
    buffer.push_back('\0');
    for (int i = 0; i < 8; ++i) buffer.push_back(char((digest >> (8 * i)) & 0xff));
  }
  return XXH3_64bits(buffer.data(), buffer.size());
}

std::string hex(uint64_t v) { return fmt::format("0x{:016x}", v); }

std::vector<std::string> split_name(const std::string& name) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = name.find('.', start);
    parts.push_back(name.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

std::string dotted_to_path(const std::string& root, const std::string& dotted) {
  std::string p = root;
  for (const auto& part : split_name(dotted)) p += "/" + part;
  return p;
}

}  // namespace detail

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
  for (const auto& [stream, s] : d.rng) check_link_name(path, "generator stream", stream);
  for (const auto& [name, v] : d.trainer) {
    if (name.empty()) throw Error(fmt::format("{}: cannot save: empty trainer field name", path));
  }
  for (const auto& [name, v] : d.scheduler) {
    if (name.empty()) throw Error(fmt::format("{}: cannot save: empty scheduler field name", path));
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

// Everything but `complete`; returns the file digest it wrote.
uint64_t write_contents(const h5::File& f, const CheckpointData& d) {
  f.set_attr("format", kCheckpointFormat);
  f.set_attr("format_version", kCheckpointFormatVersion);
  f.set_attr("lintra_version", LINTRA_VERSION);
  f.set_attr("created_utc", utc_now());
  f.set_attr("global_step", d.global_step);
  f.set_attr("epoch", d.epoch);
  f.set_attr("world_size", d.world_size);

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

  h5::Group rng = f.create_group("rng").create_group("rank_0");
  for (const auto& [stream, s] : d.rng) {
    h5::Group g = rng.create_group(stream);
    g.set_attr("seed", s.seed);
    g.set_attr("stream", s.stream);
    g.set_attr("offset", s.offset);
  }

  h5::Group data = f.create_group("data").create_group("rank_0");
  data.set_attr("epoch", d.data.epoch);
  data.set_attr("position", d.data.position);
  data.set_attr("shuffle_seed", d.data.shuffle_seed);

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

  // Identity first: these decide whether anything else is worth reading.
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

  d.lintra_version = f.attr_str("lintra_version");
  d.created_utc = f.attr_str("created_utc");
  d.global_step = f.attr_i64("global_step");
  d.epoch = f.attr_i64("epoch");
  d.world_size = f.attr_i64("world_size");
  result.file_digest = f.attr_u64("file_digest_xxh3");

  {
    h5::Dataset config = f.open_dataset("config");
    d.config_yaml = config.read_string();
    r.check_digest(config, d.config_yaml.data(), d.config_yaml.size(), "dataset");
  }
  r.read_tree(f.open_group("model"), "", d.model);

  h5::Group optimizer = f.open_group("optimizer");
  d.optimizer_type = optimizer.attr_str("type");
  d.optimizer_step = optimizer.attr_i64("step");
  d.optimizer_hparams = r.read_double_attrs(optimizer, {"type", "step"});
  for (const auto& slot : optimizer.children()) {
    r.read_tree(optimizer.open_group(slot), "", d.optimizer_slots[slot]);
  }

  d.scheduler = r.read_double_attrs(f.open_group("scheduler"), {});

  h5::Group rng = f.open_group("rng").open_group("rank_0");
  for (const auto& stream : rng.children()) {
    h5::Group g = rng.open_group(stream);
    d.rng[stream] = GeneratorState{g.attr_u64("seed"), g.attr_u64("stream"), g.attr_u64("offset")};
  }

  h5::Group data = f.open_group("data").open_group("rank_0");
  d.data = DataPosition{data.attr_i64("epoch"), data.attr_i64("position"), data.attr_u64("shuffle_seed")};

  h5::Group trainer = f.open_group("trainer");
  d.trainer = r.read_double_attrs(trainer, {});
  if (trainer.has("loss_history")) {
    h5::Dataset ds = trainer.open_dataset("loss_history");
    if (ds.dtype() != DType::f64 || ds.shape().size() != 1) {
      ds.fail(fmt::format("expected float64[n], found {}{}", ds.dtype(), shape_str(ds.shape())));
    }
    d.loss_history = r.read_tensor(ds, true).to_vector<double>();
  }

  // The optimizer's trees mirror the model's: a slot tensor without its model tensor means the
  // model tensor is missing (this names it, where the file digest below cannot).
  std::set<std::string> model_names;
  for (const auto& [name, t] : d.model) model_names.insert(name);
  for (const auto& [slot, tree] : d.optimizer_slots) {
    for (const auto& [name, t] : tree) {
      if (!model_names.count(name)) {
        r.problems.push_back(fmt::format("{}: tensor {}: missing (optimizer slot tensor {} exists)", path,
                                         dotted_to_path("/model", name), dotted_to_path("/optimizer/" + slot, name)));
      }
    }
  }

  Digests all;
  list_datasets(f, all);
  uint64_t computed = file_digest(all);
  if (computed != result.file_digest) {
    r.problems.push_back(fmt::format(
        "{}: attribute 'file_digest_xxh3': mismatch (stored {}, computed {} over {} datasets): a dataset was "
        "removed, added or renamed since the save",
        path, hex(result.file_digest), hex(computed), all.size()));
  }

  result.problems = std::move(r.problems);
  result.datasets = r.datasets;
  result.bytes = r.bytes;
  result.model_params = r.model_params;
  result.model_bytes = r.model_bytes;
  return result;
}

std::string problems_message(const std::vector<std::string>& problems) {
  std::string msg = problems.front();
  for (size_t i = 1; i < problems.size() && i < 6; ++i) msg += "\n  also: " + problems[i];
  if (problems.size() > 6) msg += fmt::format("\n  … and {} more problems", problems.size() - 6);
  return msg;
}

}  // namespace detail

// --- public API ------------------------------------------------------------------------------------

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
