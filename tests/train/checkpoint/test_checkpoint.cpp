// test_checkpoint.cpp — checkpoint files and the run directory (train/checkpoint/checkpoint.h). Invariants:
// every field round-trips; the file is plain HDF5 that h5ls and h5py read; every damaged file
// (truncated, flipped byte, not HDF5, newer version, unfinished, tensor missing) gives a one-line-first
// lintra::Error naming the file and the tensor or field, never a crash; a failed save (disk full)
// leaves the previous checkpoint and `latest` untouched; a save killed at any moment leaves a
// directory whose newest complete checkpoint loads.
#include <gtest/gtest.h>

#include "tests/test_util.h"
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/rng.h"
#include "train/checkpoint/checkpoint.h"
#include "data/files/h5.h"

namespace lintra {
namespace {

namespace fs = std::filesystem;

// --- helpers ---------------------------------------------------------------------------------------

class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = fs::temp_directory_path() / fmt::format("lintra_ckpt_{}_{}", ::getpid(), counter++);
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  std::string str() const { return path_.string(); }

 private:
  fs::path path_;
};

// A small model with nested names, every dtype, a 0-d and an empty tensor, and Adam-like slots.
// `big` adds a 256 KiB tensor so that saves take a few milliseconds.
CheckpointData make_data(int64_t step, bool big = false) {
  Generator gen(uint64_t(1000 + step));
  CheckpointData d;
  d.global_step = step;
  d.epoch = step / 10;
  d.config_yaml = fmt::format("model:\n  layers: 2\ntrain:\n  steps: {}\n", step);
  d.model = {
      {"embedding.weight", Tensor::normal({10, 4}, gen)},
      {"encoder.layers.0.attention.query.weight", Tensor::normal({4, 4}, gen)},
      {"encoder.layers.0.attention.query.bias", Tensor::normal({4}, gen)},
      {"encoder.layers.0.norm1.weight", Tensor::normal({4}, gen)},
      {"encoder.layers.1.norm1.weight", Tensor::normal({4}, gen)},
      {"positions", Tensor::from_vector(std::vector<int64_t>{0, 1, -2, int64_t(1) << 40, step}, {5})},
      {"scale", Tensor::scalar(0.125 + double(step), DType::f64)},
      {"mask", Tensor::from_vector(std::vector<uint8_t>{1, 0, 255}, {3})},
      {"empty", Tensor::zeros({0, 3})},
  };
  if (big) d.model.emplace_back("head.weight", Tensor::normal({256, 256}, gen));
  d.optimizer_type = "adam";
  d.optimizer_hparams = {{"lr", 1e-3}, {"beta1", 0.9}, {"beta2", 0.999}, {"eps", 1e-8}};
  d.optimizer_step = step;
  for (const char* slot : {"exp_avg", "exp_avg_sq"}) {
    for (const auto& [name, t] : d.model) {
      if (t.dtype() == DType::f32) d.optimizer_slots[slot].emplace_back(name, Tensor::normal(t.shape(), gen));
    }
  }
  d.scheduler = {{"last_lr", 5e-4}, {"bad_epochs", 2}};
  d.ranks[0].rng = {{"init", GeneratorState{42, 0, 17}}, {"dropout", GeneratorState{42, 1, uint64_t(1) << 63}}};
  d.ranks[0].data = DataPosition{d.epoch, 7 + step, 0xfeedfacecafebeefull};
  d.trainer = {{"best_metric", 1.25}, {"consecutive_nan_skips", 0}};
  d.loss_history = {2.5, 2.25, 2.0 - 1e-9 * double(step)};
  return d;
}

void expect_same_tensors(const NamedTensors& a, const NamedTensors& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].first, b[i].first);
    EXPECT_EQ(a[i].second.dtype(), b[i].second.dtype()) << a[i].first;
    EXPECT_EQ(a[i].second.shape(), b[i].second.shape()) << a[i].first;
    EXPECT_EQ(a[i].second.to_vector<double>(), b[i].second.to_vector<double>()) << a[i].first;
  }
}

void expect_same(const CheckpointData& a, const CheckpointData& b) {
  EXPECT_EQ(a.global_step, b.global_step);
  EXPECT_EQ(a.epoch, b.epoch);
  EXPECT_EQ(a.world_size(), b.world_size());
  EXPECT_EQ(a.config_yaml, b.config_yaml);
  expect_same_tensors(a.model, b.model);
  EXPECT_EQ(a.optimizer_type, b.optimizer_type);
  EXPECT_EQ(a.optimizer_hparams, b.optimizer_hparams);
  EXPECT_EQ(a.optimizer_step, b.optimizer_step);
  ASSERT_EQ(a.optimizer_slots.size(), b.optimizer_slots.size());
  for (const auto& [slot, tree] : a.optimizer_slots) expect_same_tensors(tree, b.optimizer_slots.at(slot));
  EXPECT_EQ(a.scheduler, b.scheduler);
  EXPECT_EQ(a.ranks, b.ranks);
  EXPECT_EQ(a.trainer, b.trainer);
  EXPECT_EQ(a.loss_history, b.loss_history);
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// The message of the lintra::Error that load_checkpoint throws (fails the test when none).
std::string load_error(const std::string& path) {
  try {
    load_checkpoint(path);
  } catch (const Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a lintra::Error: " << e.what();
    return e.what();
  }
  ADD_FAILURE() << path << " loaded although it is damaged";
  return "";
}

// Runs `fn` on the object at `path` ("/model/a/w") of an HDF5 file opened for writing.
template <typename Fn>
void with_object(const std::string& file, const std::string& path, Fn&& fn) {
  h5::File f = h5::File::open(file, /*writable=*/true);
  std::vector<std::string> parts;
  for (size_t s = 1, e; s <= path.size(); s = e + 1) {
    e = path.find('/', s);
    if (e == std::string::npos) e = path.size();
    parts.push_back(path.substr(s, e - s));
  }
  auto walk = [&](auto&& self, const h5::Group& g, size_t i) -> void {
    if (i + 1 == parts.size()) return fn(g, parts[i]);
    self(self, g.open_group(parts[i]), i + 1);
  };
  walk(walk, f, 0);
}

int64_t data_offset(const std::string& file, const std::string& path) {
  int64_t offset = -1;
  with_object(file, path, [&](const h5::Group& g, const std::string& name) { offset = g.open_dataset(name).file_offset(); });
  return offset;
}

void flip_byte(const std::string& file, int64_t offset) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(offset);
  char c = 0;
  f.read(&c, 1);
  c = char(c ^ 0x5a);
  f.seekp(offset);
  f.write(&c, 1);
}

std::string run_command(const std::string& cmd, int* status = nullptr) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int st = ::pclose(p);
  if (status) *status = st;
  return out;
}

bool have_command(const std::string& cmd) {
  int status = 0;
  run_command(cmd + " >/dev/null 2>&1", &status);
  return status == 0;
}

// --- round trip and external readers ---------------------------------------------------------------

TEST(TrainCheckpoint, RoundTripsEveryField) {
  TempDir dir;
  CheckpointData d = make_data(3);
  Generator gen(9);
  d.model.emplace_back("transposed.weight", Tensor::normal({3, 5}, gen).transpose(0, 1));  // not contiguous
  save_checkpoint(dir / "c.h5", d);
  EXPECT_FALSE(fs::exists(dir / "c.h5.tmp"));
  CheckpointData back = load_checkpoint(dir / "c.h5");
  expect_same(d, back);
  EXPECT_EQ(back.lintra_version, LINTRA_VERSION);
  EXPECT_EQ(back.created_utc.size(), 20u);
  EXPECT_EQ(back.created_utc.back(), 'Z');
  EXPECT_EQ(back.source_path, dir / "c.h5");
  VerifyReport report = verify_checkpoint(dir / "c.h5");
  EXPECT_TRUE(report.ok) << (report.problems.empty() ? "" : report.problems[0]);
  EXPECT_EQ(report.global_step, 3);
  EXPECT_GT(report.datasets_checked, 20);

  CheckpointData minimal;  // empty everything, no loss history
  save_checkpoint(dir / "m.h5", minimal);
  expect_same(minimal, load_checkpoint(dir / "m.h5"));
}

// A data-parallel run's file: one /rng/rank_<r> and /data/rank_<r> per rank, world_size their number.
TEST(TrainCheckpoint, RoundTripsEveryRanksGeneratorsAndLoaderPosition) {
  TempDir dir;
  CheckpointData d = make_data(5);
  d.ranks.resize(3);
  for (size_t r = 1; r < 3; ++r) {
    d.ranks[r].rng = {{"model.dropout", GeneratorState{42, 1 + (uint64_t(r) << 32), 100 * r}}};
    d.ranks[r].data = DataPosition{d.epoch, 12, 0xfeedfacecafebeefull};
  }
  save_checkpoint(dir / "c.h5", d);
  CheckpointData back = load_checkpoint(dir / "c.h5");
  EXPECT_EQ(back.world_size(), 3);
  expect_same(d, back);
  EXPECT_HAS(describe_checkpoint(dir / "c.h5"), "world size 3");
  d.ranks.clear();
  EXPECT_HAS(testing::error_of([&] { save_checkpoint(dir / "none.h5", d); }), "no rank state");
}

TEST(TrainCheckpoint, RejectsBadNamesBeforeWritingAnything) {
  TempDir dir;
  CheckpointData d = make_data(1);
  d.model.emplace_back("encoder.layers.0", Tensor::zeros({1}));  // also a module
  EXPECT_THROW(save_checkpoint(dir / "a.h5", d), Error);
  d = make_data(1);
  d.optimizer_slots["exp_avg"].emplace_back("not.in.model", Tensor::zeros({1}));
  EXPECT_THROW(save_checkpoint(dir / "a.h5", d), Error);
  d = make_data(1);
  d.model.emplace_back("a..b", Tensor::zeros({1}));
  EXPECT_THROW(save_checkpoint(dir / "a.h5", d), Error);
  EXPECT_TRUE(fs::is_empty(dir.str()));
  try {
    save_checkpoint(dir / "no/such/dir/x.h5", make_data(1));
    ADD_FAILURE() << "saved into a missing directory";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(dir / "no/such/dir/x.h5: checkpoint not saved", 0), 0u) << e.what();
  }
}

// Found by fuzz_checkpoint: a config text with a NUL byte was written, read back cut at the NUL and
// refused as "verification after writing failed: dataset /config: digest mismatch". It is now refused
// before anything is written, naming the offset; the HDF5 layer refuses such strings too.
TEST(TrainCheckpoint, AConfigWithANulByteIsRefusedBeforeWriting) {
  TempDir dir;
  CheckpointData d = make_data(1);
  d.config_yaml = std::string("RIFF.\0\0\0WAVE", 12);
  try {
    save_checkpoint(dir / "n.h5", d);
    ADD_FAILURE() << "saved a config with a NUL byte";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the config text holds a NUL byte at offset 5"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(fs::is_empty(dir.str()));
  h5::File f = h5::File::create(dir / "s.h5");
  EXPECT_THROW(f.write_string("s", std::string("a\0b", 3)), Error);
  EXPECT_THROW(f.set_attr("a", std::string_view("a\0b", 3)), Error);
  EXPECT_EQ(f.write_string("t", "a b").read_string(), "a b");
}

TEST(TrainCheckpoint, H5lsShowsTheModuleTreeAsGroups) {
  if (!have_command("command -v h5ls")) GTEST_SKIP() << "h5ls not installed (hdf5-tools)";
  TempDir dir;
  save_checkpoint(dir / "c.h5", make_data(2));
  std::string listing;  // h5ls's output with runs of spaces squeezed to one
  for (char c : run_command("h5ls -r " + (dir / "c.h5"))) {
    if (c != ' ' || listing.empty() || listing.back() != ' ') listing.push_back(c);
  }
  for (const char* line : {"/model/encoder/layers/0/attention/query Group\n",
                           "/model/encoder/layers/0/attention/query/weight Dataset {4, 4}\n",
                           "/model/scale Dataset {SCALAR}\n", "/model/empty Dataset {0, 3}\n",
                           "/optimizer/exp_avg/encoder/layers/1/norm1/weight Dataset {4}\n",
                           "/rng/rank_0/dropout Group\n", "/data/rank_0 Group\n", "/config Dataset {SCALAR}\n",
                           "/trainer/loss_history Dataset {3}\n"}) {
    EXPECT_NE(listing.find(line), std::string::npos) << "missing '" << line << "' in\n" << listing;
  }
}

TEST(TrainCheckpoint, H5pyReadsAParameterWithNoLintraCode) {
  const std::string python = "/usr/bin/python3";
  if (!have_command(python + " -c 'import h5py'")) GTEST_SKIP() << "Debian's python3-h5py not installed";
  TempDir dir;
  CheckpointData d = make_data(4);
  save_checkpoint(dir / "c.h5", d);
  std::string script =
      "import h5py, sys\n"
      "f = h5py.File(sys.argv[1], 'r')\n"
      "w = f['model/encoder/layers/0/attention/query/weight']\n"
      "print(w.dtype, list(w.shape))\n"
      "print(' '.join(repr(float(x)) for x in w[()].ravel()))\n"
      "print(f.attrs['format'].decode(), int(f.attrs['format_version']), int(f.attrs['complete']),"
      " int(f.attrs['global_step']))\n"
      "print(repr(f['config'][()].decode()))\n";
  std::ofstream(dir / "read.py") << script;
  int status = 0;
  std::string out = run_command(python + " " + (dir / "read.py") + " " + (dir / "c.h5") + " 2>&1", &status);
  ASSERT_EQ(status, 0) << out;
  std::istringstream lines(out);
  std::string l1, l2, l3, l4;
  std::getline(lines, l1), std::getline(lines, l2), std::getline(lines, l3), std::getline(lines, l4);
  EXPECT_EQ(l1, "float32 [4, 4]");
  std::vector<float> expected = d.model[1].second.to_vector<float>(), got;
  std::istringstream values(l2);
  for (std::string v; values >> v;) got.push_back(float(std::stod(v)));
  EXPECT_EQ(got, expected);
  EXPECT_EQ(l3, "lintra-checkpoint 1 1 4");
  EXPECT_EQ(l4, "'model:\\n  layers: 2\\ntrain:\\n  steps: 4\\n'");
}

// --- damaged files ---------------------------------------------------------------------------------

TEST(TrainCheckpoint, TruncatedFilesGiveClearErrors) {
  TempDir dir;
  save_checkpoint(dir / "c.h5", make_data(5));
  int64_t size = int64_t(fs::file_size(dir / "c.h5"));
  for (int64_t cut : {int64_t(0), int64_t(7), int64_t(100), size / 3, size / 2, size - 100, size - 1}) {
    std::string path = dir / fmt::format("cut_{}.h5", cut);
    fs::copy_file(dir / "c.h5", path);
    fs::resize_file(path, uint64_t(cut));
    std::string msg = load_error(path);
    EXPECT_EQ(msg.rfind(path + ": ", 0), 0u) << msg;
    EXPECT_FALSE(verify_checkpoint(path).ok);
    EXPECT_NE(describe_checkpoint(path).find("FAILED"), std::string::npos);
  }
}

TEST(TrainCheckpoint, FlippedByteInATensorIsADigestMismatchNamingIt) {
  TempDir dir;
  std::string path = dir / "c.h5";
  save_checkpoint(path, make_data(6));
  const std::string tensor = "/model/encoder/layers/0/norm1/weight";
  int64_t offset = data_offset(path, tensor);
  ASSERT_GT(offset, 0);
  flip_byte(path, offset + 5);
  std::string msg = load_error(path);
  EXPECT_EQ(first_line(msg).rfind(path + ": tensor " + tensor + ": digest mismatch (stored 0x", 0), 0u) << msg;
  VerifyReport report = verify_checkpoint(path);
  EXPECT_FALSE(report.ok);
  ASSERT_EQ(report.problems.size(), 1u);
  EXPECT_EQ(report.problems[0], first_line(msg));
}

TEST(TrainCheckpoint, NotHdf5FutureVersionUnfinishedAndMissingTensor) {
  TempDir dir;
  std::ofstream(dir / "text.h5") << "model: {layers: 2}\n";
  EXPECT_EQ(first_line(load_error(dir / "text.h5")).rfind(dir / "text.h5: not an HDF5 file", 0), 0u);
  EXPECT_EQ(first_line(load_error(dir / "nothing.h5")), dir / "nothing.h5: no such file");

  auto fresh = [&](const std::string& name) {
    save_checkpoint(dir / name, make_data(7));
    return dir / name;
  };
  std::string future = fresh("future.h5");
  with_object(future, "/x", [](const h5::Group& root, const std::string&) { root.set_attr("format_version", int64_t(2)); });
  EXPECT_EQ(first_line(load_error(future)),
            future + ": written by a newer lintra (format_version 2 > 1); upgrade lintra to read it");

  std::string unfinished = fresh("unfinished.h5");
  with_object(unfinished, "/x", [](const h5::Group& root, const std::string&) { root.delete_attr("complete"); });
  EXPECT_EQ(first_line(load_error(unfinished)).rfind(unfinished + ": incomplete checkpoint", 0), 0u);

  std::string other = fresh("other.h5");
  with_object(other, "/x", [](const h5::Group& root, const std::string&) { root.set_attr("format", "something-else"); });
  EXPECT_EQ(first_line(load_error(other)).rfind(other + ": not a lintra checkpoint", 0), 0u);

  // A model tensor with optimizer slots: named through its slots.
  std::string missing = fresh("missing.h5");
  with_object(missing, "/model/encoder/layers/0/norm1/weight",
              [](const h5::Group& g, const std::string& name) { g.unlink(name); });
  EXPECT_EQ(first_line(load_error(missing)), missing + ": tensor /model/encoder/layers/0/norm1/weight: missing "
                                                       "(optimizer slot tensor /optimizer/exp_avg/encoder/layers/0/"
                                                       "norm1/weight exists)");
  // One without: the file digest names the field; check_against then names the tensor.
  std::string missing2 = fresh("missing2.h5");
  with_object(missing2, "/model/positions", [](const h5::Group& g, const std::string& name) { g.unlink(name); });
  EXPECT_EQ(first_line(load_error(missing2)).rfind(missing2 + ": attribute 'file_digest_xxh3': mismatch", 0), 0u);

  std::string field = fresh("field.h5");
  with_object(field, "/data/rank_0", [](const h5::Group& g, const std::string& name) {
    g.open_group(name).delete_attr("position");
  });
  EXPECT_EQ(first_line(load_error(field)), field + ": group /data/rank_0: attribute 'position': missing");
}

TEST(TrainCheckpoint, CheckAgainstReportsEveryMismatchAtOnce) {
  TempDir dir;
  save_checkpoint(dir / "c.h5", make_data(8));
  CheckpointData d = load_checkpoint(dir / "c.h5");
  std::vector<std::pair<std::string, TensorSpec>> expected;
  for (const auto& [name, t] : d.model) expected.emplace_back(name, TensorSpec{t.shape(), t.dtype()});
  EXPECT_TRUE(check_against(d, expected).empty());

  expected.erase(expected.begin() + 5);                          // positions: unexpected in the checkpoint
  expected.emplace_back("decoder.weight", TensorSpec{{2, 2}, DType::f32});  // missing from the checkpoint
  expected[0].second.shape = {10, 5};                            // embedding: shape (model and both slots)
  expected[5].second.dtype = DType::f32;                         // scale: dtype
  std::vector<std::string> problems = check_against(d, expected);
  std::string p = dir / "c.h5: ";
  std::vector<std::string> want = {
      p + "model tensor decoder.weight: missing from the checkpoint (the model has float32[2, 2])",
      p + "model tensor embedding.weight: shape [10, 4] in the checkpoint, [10, 5] in the model",
      p + "model tensor positions: in the checkpoint (int64[5]) but not in the model",
      p + "model tensor scale: dtype float64 in the checkpoint, float32 in the model",
      p + "optimizer slot exp_avg tensor embedding.weight: shape [10, 4] in the checkpoint, [10, 5] in the model",
      p + "optimizer slot exp_avg_sq tensor embedding.weight: shape [10, 4] in the checkpoint, [10, 5] in the model",
  };
  EXPECT_EQ(problems, want);
}

TEST(TrainCheckpoint, DescribeAndDiff) {
  TempDir dir;
  save_checkpoint(dir / "a.h5", make_data(9));
  CheckpointData b = make_data(9);
  b.model[0].second.data<float>()[3] += 0.5f;
  b.model.erase(b.model.begin() + 7);  // mask (no optimizer slots)
  save_checkpoint(dir / "b.h5", b);
  std::string info = describe_checkpoint(dir / "a.h5");
  EXPECT_NE(info.find("step          9 (epoch 0, world size 1)"), std::string::npos) << info;
  EXPECT_NE(info.find("model         9 tensors, 77 parameters"), std::string::npos) << info;
  EXPECT_NE(info.find("verification  OK"), std::string::npos) << info;
  std::vector<TensorDiff> diffs = diff_checkpoints(dir / "a.h5", dir / "b.h5");
  int differs = 0, only_a = 0, same = 0;
  for (const auto& d : diffs) {
    if (d.kind == TensorDiff::Kind::differs) {
      ++differs;
      EXPECT_EQ(d.path, "/model/embedding/weight");
      EXPECT_FLOAT_EQ(float(d.max_abs_diff), 0.5f);
    }
    only_a += d.kind == TensorDiff::Kind::only_in_a;
    same += d.kind == TensorDiff::Kind::same;
  }
  EXPECT_EQ(differs, 1);
  EXPECT_EQ(only_a, 1);  // /model/mask
  EXPECT_GT(same, 10);
  EXPECT_NE(format_diff(diffs).find("1 differ, 1 only in a"), std::string::npos) << format_diff(diffs);
}

// --- the run directory -----------------------------------------------------------------------------

TEST(TrainCheckpointManager, RetentionAndLatest) {
  TempDir dir;
  CheckpointManager mgr(dir.str(), /*keep_last=*/2, /*keep_every=*/4);
  std::ofstream(dir / "notes.txt") << "mine";
  std::ofstream(dir / "step_7.h5.tmp") << "left by a killed save";
  std::ofstream(dir / "other.tmp") << "not ours";
  for (int64_t step = 1; step <= 9; ++step) EXPECT_EQ(mgr.save(step, make_data(step)), dir / fmt::format("step_{}.h5", step));
  EXPECT_EQ(mgr.steps(), (std::vector<int64_t>{4, 8, 9}));
  EXPECT_EQ(mgr.latest_name(), "step_9.h5");
  EXPECT_FALSE(fs::exists(dir / "step_7.h5.tmp"));
  EXPECT_TRUE(fs::exists(dir / "notes.txt"));
  EXPECT_TRUE(fs::exists(dir / "other.tmp"));

  mgr.save_best(make_data(8));
  mgr.save(3, make_data(3));  // an older step: `latest` names it, so retention keeps it
  EXPECT_EQ(mgr.latest_name(), "step_3.h5");
  EXPECT_EQ(mgr.steps(), (std::vector<int64_t>{3, 4, 8, 9}));
  EXPECT_TRUE(verify_checkpoint(dir / "best.h5").ok);

  auto loaded = mgr.load_latest();
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->path, dir / "step_9.h5");
  expect_same(loaded->data, make_data(9));
}

// The message of the lintra::Error that resolve_checkpoint_path throws (fails the test when none).
std::string resolve_error(const std::string& argument) {
  try {
    resolve_checkpoint_path(argument);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << argument << " resolved although it names no checkpoint";
  return "";
}


TEST(TrainCheckpointManager, ResolvesWhatAUserNamesAsACheckpoint) {
  TempDir run;
  const fs::path ckpts = run / "checkpoints";
  fs::create_directories(ckpts);
  CheckpointManager mgr(ckpts.string());
  EXPECT_HAS(resolve_error(run.str()), "no usable checkpoint here (no 'latest' pointer file at");
  mgr.save(5, make_data(5));
  mgr.save(6, make_data(6));
  const std::string newest = (ckpts / "step_6.h5").string();
  EXPECT_EQ(resolve_checkpoint_path((ckpts / "step_5.h5").string()), (ckpts / "step_5.h5").string());
  EXPECT_EQ(resolve_checkpoint_path((ckpts / "latest").string()), newest);
  EXPECT_EQ(resolve_checkpoint_path(ckpts.string()), newest);
  EXPECT_EQ(resolve_checkpoint_path(run.str()), newest);
  EXPECT_HAS(resolve_error(run / "nope.h5"), "no such file or directory");
}

// `lintra eval RUN` falls back as `lintra train` does when `latest` names a file that is gone: to the
// newest step file that verifies, saying so; and the trainer's note does not call an older file newer.
TEST(TrainCheckpointManager, ADanglingLatestFallsBackToTheNewestCompleteWithATrueNote) {
  TempDir run;
  const fs::path ckpts = run / "checkpoints";
  CheckpointManager mgr(ckpts.string(), 5);
  for (int64_t step : {5, 6, 7}) mgr.save(step, make_data(step));
  fs::remove(ckpts / "step_7.h5");  // `latest` still names it
  fs::resize_file(ckpts / "step_6.h5", fs::file_size(ckpts / "step_6.h5") / 2);
  std::vector<std::string> log;
  const auto say = [&](const std::string& m) { log.push_back(m); };
  EXPECT_EQ(resolve_checkpoint_path(run.str(), say), (ckpts / "step_5.h5").string());
  ASSERT_EQ(log.size(), 2u);
  EXPECT_HAS(log[0], "skipping broken checkpoint " + (ckpts / "step_6.h5").string());
  EXPECT_HAS(log[1], "latest names step_7.h5, which does not exist; using " + (ckpts / "step_5.h5").string());
  fs::remove(ckpts / "step_6.h5");
  log.clear();
  ASSERT_TRUE(mgr.load_latest(say).has_value());
  ASSERT_EQ(log.size(), 1u);
  EXPECT_HAS(log[0], "latest names step_7.h5, which does not exist; using " + (ckpts / "step_5.h5").string());
  EXPECT_EQ(log[0].find("newer"), std::string::npos) << log[0];
  fs::remove(ckpts / "step_5.h5");
  EXPECT_HAS(resolve_error(run.str()), "names step_7.h5, which does not exist; no step_<N>.h5 in");
}

TEST(TrainCheckpointManager, LoadLatestSkipsABrokenNewestLoudly) {
  TempDir dir;
  CheckpointManager mgr(dir.str(), 5);
  std::vector<std::string> log;
  EXPECT_FALSE(mgr.load_latest([&](const std::string& m) { log.push_back(m); }).has_value());
  for (int64_t step : {10, 20, 30}) mgr.save(step, make_data(step));
  flip_byte(dir / "step_30.h5", data_offset(dir / "step_30.h5", "/model/embedding/weight") + 1);
  fs::resize_file(dir / "step_20.h5", fs::file_size(dir / "step_20.h5") / 2);
  auto loaded = mgr.load_latest([&](const std::string& m) { log.push_back(m); });
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->path, dir / "step_10.h5");
  EXPECT_EQ(loaded->data.global_step, 10);
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log[0].rfind("WARNING: skipping broken checkpoint " + (dir / "step_30.h5"), 0), 0u) << log[0];
  EXPECT_NE(log[0].find("tensor /model/embedding/weight: digest mismatch"), std::string::npos) << log[0];
  EXPECT_EQ(log[1].rfind("WARNING: skipping broken checkpoint " + (dir / "step_20.h5"), 0), 0u) << log[1];
  EXPECT_NE(log[2].find("older checkpoint " + (dir / "step_10.h5")), std::string::npos) << log[2];
}

// Saves step_2 with writes limited to `limit` bytes per file in a child; returns its error message.
// The data is made before fork(): libgomp is not fork-safe, so a child must not run OpenMP kernels
// (Tensor::normal) once the parent has.
std::string save_with_file_size_limit(const std::string& dir, rlim_t limit, bool many_small) {
  CheckpointData d = make_data(2, /*big=*/!many_small);
  Generator gen(5);
  for (int i = 0; many_small && i < 400; ++i) d.model.emplace_back(fmt::format("extra.p{}", i), Tensor::normal({64}, gen));
  int fds[2];
  if (::pipe(fds) != 0) return "pipe failed";
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    ::signal(SIGXFSZ, SIG_IGN);
    rlimit rl{limit, limit};
    ::setrlimit(RLIMIT_FSIZE, &rl);
    std::string msg = "saved without error";
    int code = 1;
    try {
      CheckpointManager(dir, 3).save(2, d);
    } catch (const Error& e) {
      msg = e.what(), code = 0;
    } catch (const std::exception& e) {
      msg = std::string("not a lintra::Error: ") + e.what(), code = 2;
    }
    ssize_t ignored = ::write(fds[1], msg.data(), msg.size());
    (void)ignored;
    ::_exit(code);
  }
  ::close(fds[1]);
  std::string msg;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) msg.append(buf, size_t(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status << ": " << msg;
  return msg;
}

TEST(TrainCheckpointManager, DiskFullLeavesThePreviousCheckpointAndLatest) {
  for (bool many_small : {false, true}) {
    TempDir dir;
    CheckpointManager mgr(dir.str(), 3);
    mgr.save(1, make_data(1));
    auto before = fs::last_write_time(dir / "step_1.h5");
    std::string msg = save_with_file_size_limit(dir.str(), 48 * 1024, many_small);
    EXPECT_NE(msg.find("File too large"), std::string::npos) << msg;  // the system's reason (EFBIG)
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_EQ(msg.rfind(dir / "step_2.h5: checkpoint not saved: ", 0), 0u) << msg;
    EXPECT_NE(msg.find("step_2.h5.tmp"), std::string::npos) << msg;  // names the file that failed
    EXPECT_FALSE(fs::exists(dir / "step_2.h5"));
    EXPECT_FALSE(fs::exists(dir / "step_2.h5.tmp"));
    EXPECT_EQ(mgr.latest_name(), "step_1.h5");
    EXPECT_EQ(fs::last_write_time(dir / "step_1.h5"), before);
    auto loaded = mgr.load_latest();
    ASSERT_TRUE(loaded.has_value());
    expect_same(loaded->data, make_data(1));
  }
}

TEST(TrainCheckpointManager, SurvivesSigkillAtRandomMoments) {
  TempDir dir;
  CheckpointManager mgr(dir.str(), 2, 5);
  // Made before fork() (see save_with_file_size_limit); a child only changes global_step.
  std::vector<CheckpointData> variants = {make_data(0, true), make_data(1, true), make_data(2, true)};
  auto data_for = [&](int64_t step) {
    CheckpointData d = variants[size_t(step % 3)];
    d.global_step = step;
    return d;
  };
  auto t0 = std::chrono::steady_clock::now();
  mgr.save(0, data_for(0));
  // Kills come after 0–50 ms, or up to three saves' time where saving is slower (sanitizer builds).
  auto save_us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0);
  int max_sleep_us = std::max(50000, 3 * int(save_us.count()));
  std::mt19937 rng(1234);
  int64_t next = 1;
  int saved_during_run = 0, killed_mid_save = 0;
  for (int round = 0; round < 24; ++round) {
    pid_t pid = ::fork();
    if (pid == 0) {
      CheckpointManager child(dir.str(), 2, 5);
      for (int64_t step = next; step < next + 100000; ++step) child.save(step, data_for(step));
      ::_exit(0);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(std::uniform_int_distribution<int>(0, max_sleep_us)(rng)));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the saving child ended on its own: " << status;

    std::vector<std::string> log;
    auto loaded = mgr.load_latest([&](const std::string& m) { log.push_back(m); });
    ASSERT_TRUE(loaded.has_value()) << "round " << round;
    for (const auto& m : log) EXPECT_EQ(m.find("WARNING"), std::string::npos) << m;
    std::vector<int64_t> steps = mgr.steps();
    ASSERT_FALSE(steps.empty());
    std::optional<std::string> latest = mgr.latest_name();
    ASSERT_TRUE(latest.has_value());
    EXPECT_TRUE(fs::exists(dir / *latest)) << *latest;
    EXPECT_EQ(loaded->data.global_step, steps.back());
    expect_same_tensors(loaded->data.model, variants[size_t(steps.back() % 3)].model);
    for (const auto& entry : fs::directory_iterator(dir.str())) {
      if (entry.path().extension() == ".h5") {
        VerifyReport r = verify_checkpoint(entry.path().string());
        EXPECT_TRUE(r.ok) << entry.path() << ": " << (r.problems.empty() ? "" : r.problems[0]);
      }
    }
    saved_during_run += int(steps.back() >= next);
    for (const auto& e : fs::directory_iterator(dir.str())) killed_mid_save += int(e.path().extension() == ".tmp");
    next = steps.back() + 1;
  }
  EXPECT_GT(saved_during_run, 5);  // children did save before being killed …
  EXPECT_GT(killed_mid_save, 2);   // … and were killed in the middle of a save
  mgr.save(next, data_for(next));
  for (const auto& entry : fs::directory_iterator(dir.str())) EXPECT_NE(entry.path().extension(), ".tmp") << entry.path();
}

}  // namespace
}  // namespace lintra
