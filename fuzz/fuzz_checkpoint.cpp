// fuzz_checkpoint.cpp — the checkpoint reader's validation (train/checkpoint/: load_checkpoint,
// verify_checkpoint, describe_checkpoint, check_against) against well-formed HDF5 files whose contents
// lie. The input describes a small valid checkpoint (tensors, shapes, optimizer slots, loop state)
// and up to 8 edits made to the saved file with the HDF5 API: attributes deleted or rewritten with
// other types and values, objects unlinked, datasets replaced by others of another dtype or shape
// (with a matching digest, so that only the shape checks can tell), datasets that declare far more
// elements than the file holds, extra groups and datasets, a rewritten /config, and a few bytes of
// the file overwritten (HDF5's own metadata checksums must catch those).
// Checks: save_checkpoint refuses exactly the configs with a NUL byte; verify_checkpoint and
// describe_checkpoint never throw; load_checkpoint throws only
// lintra::Error, and exactly when verification fails; an unedited file loads back to what was saved.
#include <fuzzer/FuzzedDataProvider.h>
#include <hdf5.h>
#include <xxhash.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "train/checkpoint/checkpoint.h"

namespace {

using namespace lintra;

const std::vector<std::string> kTensorNames = {"enc.w", "enc.b", "head"};
const std::vector<std::string> kPaths = {
    "/",        "/config",       "/model",      "/model/enc", "/model/enc/w",       "/model/enc/b",
    "/model/head", "/optimizer", "/optimizer/exp_avg", "/optimizer/exp_avg/enc/w", "/scheduler", "/rng",
    "/rng/rank_0", "/rng/rank_0/model.init", "/data", "/data/rank_0", "/trainer", "/trainer/loss_history"};
const std::vector<std::string> kAttrs = {"format", "format_version", "lintra_version", "created_utc", "global_step",
                                         "epoch", "world_size", "file_digest_xxh3", "complete", "xxh3", "type",
                                         "step", "lr", "seed", "stream", "offset", "position", "shuffle_seed", "best"};

Tensor random_tensor(FuzzedDataProvider& in) {
  const DType dtype = in.ConsumeBool() ? DType::f32 : DType::f64;
  Shape shape(in.ConsumeIntegralInRange<size_t>(0, 2));
  int64_t n = 1;
  for (auto& d : shape) n *= (d = in.ConsumeIntegralInRange<int64_t>(0, 3));
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = in.ConsumeFloatingPoint<double>();
  Tensor t = Tensor::from_vector(v, shape);
  return dtype == DType::f64 ? t : t.to(DType::f32);
}

// A checkpoint the writer accepts, shaped by the input.
CheckpointData random_checkpoint(FuzzedDataProvider& in) {
  CheckpointData d;
  d.global_step = in.ConsumeIntegral<int64_t>();
  d.epoch = in.ConsumeIntegral<int64_t>();
  d.config_yaml = in.ConsumeRandomLengthString(64);
  const size_t n = in.ConsumeIntegralInRange<size_t>(1, kTensorNames.size());
  for (size_t i = 0; i < n; ++i) d.model.emplace_back(kTensorNames[i], random_tensor(in));
  d.optimizer_type = "adam";
  d.optimizer_hparams = {{"lr", in.ConsumeFloatingPoint<double>()}};
  d.optimizer_step = in.ConsumeIntegral<int64_t>();
  if (in.ConsumeBool())
    for (const auto& [name, t] : d.model) d.optimizer_slots["exp_avg"].emplace_back(name, t.clone());
  d.scheduler = {{"step", in.ConsumeFloatingPoint<double>()}};
  d.ranks.resize(in.ConsumeIntegralInRange<size_t>(1, 3));  // one world size or another
  for (RankState& r : d.ranks) {
    r.rng["model.init"] = GeneratorState{in.ConsumeIntegral<uint64_t>(), in.ConsumeIntegral<uint64_t>(), 0};
    r.data = DataPosition{in.ConsumeIntegral<int64_t>(), in.ConsumeIntegral<int64_t>(), in.ConsumeIntegral<uint64_t>()};
  }
  d.trainer = {{"best", in.ConsumeFloatingPoint<double>()}};
  for (size_t i = in.ConsumeIntegralInRange<size_t>(0, 3); i > 0; --i) d.loss_history.push_back(in.ConsumeFloatingPoint<double>());
  return d;
}

// --- edits through the HDF5 API (each may fail harmlessly: an object an earlier edit removed) -------

void set_attr(hid_t obj, const std::string& name, hid_t type, const void* value) {
  if (H5Aexists(obj, name.c_str()) > 0) H5Adelete(obj, name.c_str());
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate2(obj, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT);
  if (a >= 0) H5Awrite(a, type, value), H5Aclose(a);
  H5Sclose(space);
}

void rewrite_attr(FuzzedDataProvider& in, hid_t obj, const std::string& name) {
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: {
      const int64_t v = in.ConsumeIntegral<int64_t>();
      return set_attr(obj, name, H5T_STD_I64LE, &v);
    }
    case 1: {
      const uint64_t v = in.ConsumeIntegral<uint64_t>();
      return set_attr(obj, name, H5T_STD_U64LE, &v);
    }
    case 2: {
      const double v = in.ConsumeFloatingPoint<double>();
      return set_attr(obj, name, H5T_IEEE_F64LE, &v);
    }
    default: {
      std::string s = in.ConsumeRandomLengthString(16);
      if (s.empty()) s = "x";
      const hid_t type = H5Tcopy(H5T_C_S1);
      H5Tset_size(type, s.size());
      set_attr(obj, name, type, s.data());
      H5Tclose(type);
    }
  }
}

// A dataset at `path` (replacing one there) of a random dtype and shape; `huge` declares up to 2^40
// elements without storing them. Its xxh3 matches its bytes.
void put_dataset(FuzzedDataProvider& in, hid_t file, const std::string& path, bool huge) {
  if (H5Lexists(file, path.c_str(), H5P_DEFAULT) > 0) H5Ldelete(file, path.c_str(), H5P_DEFAULT);
  const hid_t types[] = {H5T_IEEE_F32LE, H5T_IEEE_F64LE, H5T_STD_I64LE, H5T_STD_U8LE, H5T_STD_I32LE};
  const hid_t type = types[in.ConsumeIntegralInRange<int>(0, 4)];
  const int rank = in.ConsumeIntegralInRange<int>(0, 3);
  hsize_t dims[3] = {1, 1, 1};
  hsize_t n = 1;
  for (int i = 0; i < rank; ++i) n *= (dims[i] = huge ? hsize_t(1) << in.ConsumeIntegralInRange<int>(8, 13) : in.ConsumeIntegralInRange<hsize_t>(0, 4));
  const hid_t space = rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, dims, nullptr);
  const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_LATE);
  H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
  const hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  const hid_t d = H5Dcreate2(file, path.c_str(), type, space, lcpl, dcpl, H5P_DEFAULT);
  if (d >= 0) {
    if (!huge) {
      std::vector<uint8_t> bytes = in.ConsumeBytes<uint8_t>(size_t(n) * H5Tget_size(type));
      bytes.resize(size_t(n) * H5Tget_size(type));
      if (!bytes.empty()) H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data());
      const uint64_t digest = XXH3_64bits(bytes.data(), bytes.size());
      set_attr(d, "xxh3", H5T_STD_U64LE, &digest);
    }
    H5Dclose(d);
  }
  H5Pclose(lcpl);
  H5Pclose(dcpl);
  H5Sclose(space);
}

void edit(FuzzedDataProvider& in, hid_t file) {
  const std::string& path = kPaths[in.ConsumeIntegralInRange<size_t>(0, kPaths.size() - 1)];
  const std::string& attr = kAttrs[in.ConsumeIntegralInRange<size_t>(0, kAttrs.size() - 1)];
  const int what = in.ConsumeIntegralInRange<int>(0, 5);
  if (what >= 3) {  // objects
    if (what == 3 && path != "/") H5Ldelete(file, path.c_str(), H5P_DEFAULT);
    if (what == 4) put_dataset(in, file, path == "/" ? "/model/extra" : path, in.ConsumeBool());
    if (what == 5) put_dataset(in, file, path + (path == "/" ? "" : "/") + "added", false);
    return;
  }
  const hid_t obj = H5Oopen(file, path.c_str(), H5P_DEFAULT);
  if (obj < 0) return;
  if (what == 0 && H5Aexists(obj, attr.c_str()) > 0) H5Adelete(obj, attr.c_str());
  if (what >= 1) rewrite_attr(in, obj, attr);
  H5Oclose(obj);
}

// A few bytes of the file overwritten in place.
void overwrite_bytes(FuzzedDataProvider& in, const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "r+b");
  if (!f) return;
  std::fseek(f, 0, SEEK_END);
  const long size = std::ftell(f);
  for (int i = in.ConsumeIntegralInRange<int>(1, 4); i > 0 && size > 0; --i) {
    std::fseek(f, long(in.ConsumeIntegralInRange<uint64_t>(0, uint64_t(size - 1))), SEEK_SET);
    const uint8_t b = in.ConsumeIntegral<uint8_t>();
    std::fwrite(&b, 1, 1, f);
  }
  std::fclose(f);
}

// What a model with the saved tensors' names and shapes expects.
std::vector<std::pair<std::string, TensorSpec>> specs(const CheckpointData& d) {
  std::vector<std::pair<std::string, TensorSpec>> out;
  for (const auto& [name, t] : d.model) out.push_back({name, {t.shape(), t.dtype()}});
  return out;
}

void check_reader(const std::string& path, const CheckpointData& saved, bool edited) {
  const VerifyReport report = verify_checkpoint(path);  // never throws
  describe_checkpoint(path);                            // never throws
  std::optional<CheckpointData> loaded;
  fuzz::accepts([&] { loaded = load_checkpoint(path); });
  FUZZ_CHECK(loaded.has_value() == report.ok, "load_checkpoint and verify_checkpoint disagree");
  FUZZ_CHECK(edited || loaded.has_value(), "an unedited checkpoint does not load");
  if (!loaded) return;
  for (const auto& [name, t] : loaded->model) FUZZ_CHECK(t.defined() && t.numel() >= 0, "a loaded tensor is undefined");
  const std::vector<std::string> problems = check_against(*loaded, specs(saved));
  FUZZ_CHECK(edited || problems.empty(), "an unedited checkpoint does not match its own tensors");
  FUZZ_CHECK(edited || loaded->global_step == saved.global_step, "an unedited checkpoint's step changed");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // HDF5's own error printing off; its free lists off, so that a leak report names the allocation
  // that leaked rather than the first use of a recycled block.
  static const bool setup = (H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr), H5set_free_list_limits(0, 0, 0, 0, 0, 0), true);
  (void)setup;
  FuzzedDataProvider in(data, size);
  const std::string path = (fuzz::scratch_dir("checkpoint") / "c.h5").string();
  const CheckpointData saved = random_checkpoint(in);
  // A config text with a NUL byte is refused (HDF5 strings end at one); everything else is saved.
  const bool has_nul = saved.config_yaml.find('\0') != std::string::npos;
  const bool written = fuzz::accepts([&] { save_checkpoint(path, saved); });
  FUZZ_CHECK(written != has_nul, "save_checkpoint refused a valid checkpoint, or saved a config with a NUL byte");
  if (!written) return 0;
  const int edits = in.ConsumeIntegralInRange<int>(0, 8);
  if (edits > 0) {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    FUZZ_CHECK(file >= 0, "a saved checkpoint does not open");
    for (int i = 0; i < edits && in.remaining_bytes() > 0; ++i) edit(in, file);
    H5Fclose(file);
  }
  const bool bytes = in.ConsumeBool() && in.ConsumeBool();
  if (bytes) overwrite_bytes(in, path);
  check_reader(path, saved, edits > 0 || bytes);
  return 0;
}
