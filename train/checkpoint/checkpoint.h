// checkpoint.h — lintra's checkpoint files (DESIGN.md §7) and the run directory's checkpoints/.
//
// A checkpoint is a plain data structure (CheckpointData) that the trainer fills from the model,
// optimizer, scheduler, generators and loader; this file knows nothing of those classes. On disk it
// is a self-describing HDF5 file that h5ls, h5dump and h5py read with no lintra code:
//
//   /              attrs format="lintra-checkpoint", format_version=1, lintra_version, created_utc,
//                  global_step, epoch, world_size, file_digest_xxh3, complete=1 (written last)
//   /config        scalar string dataset: the resolved YAML
//   /model/<module path as groups>/<param>     datasets of the tensor's dtype (float32 …), little-endian
//   /optimizer     attrs type, step, one float64 attr per hyperparameter
//   /optimizer/<slot>/<same tree as /model>   e.g. /optimizer/exp_avg/encoder/layers/0/…/weight
//   /scheduler     float64 attrs
//   /rng/rank_<r>/<stream>   group with uint64 attrs seed, stream, offset (core/rng.h GeneratorState)
//   /data/rank_<r>   attrs epoch, position (int64), shuffle_seed (uint64)
//                  one /rng/rank_<r> and /data/rank_<r> per rank r of the world_size that trained
//   /trainer       float64 attrs; optional dataset loss_history (float64[n])
//
// Digests (XXH3-64). Every dataset (tensors, /config, loss_history) has a uint64 attr `xxh3`: the
// digest of its raw little-endian bytes (for /config: of the YAML text). `file_digest_xxh3` is the
// XXH3-64 of, for every dataset in byte order of its full path, the path, one NUL byte and the
// 8 little-endian bytes of its `xxh3`. It catches a dataset removed, added or renamed. HDF5's own
// metadata checksums (the 1.8 object formats) catch damage to groups and attributes.
//
// Saving is atomic: a file either is a complete, verified checkpoint or does not have its name.
// Errors are lintra::Error whose first line names the file and the tensor or field.
// A data-parallel run (train/distributed/) stores one file, written by rank 0: the model and optimizer
// are the same on every rank, each rank's generators and loader position are its own (ranks).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "core/tensor.h"

namespace lintra {

inline constexpr const char* kCheckpointFormat = "lintra-checkpoint";
inline constexpr int64_t kCheckpointFormatVersion = 1;

// Tensors by dotted name ("encoder.layers.0.attention.query.weight"); each name part becomes a group.
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

// A data loader's position (/data/rank_<r>).
struct DataPosition {
  int64_t epoch = 0;
  int64_t position = 0;  // batch index within the epoch
  uint64_t shuffle_seed = 0;
  bool operator==(const DataPosition&) const = default;
};

// What is a rank's own: its generators (stream name ("model.dropout") -> state) and loader position.
struct RankState {
  std::map<std::string, GeneratorState> rng;
  DataPosition data;
  bool operator==(const RankState&) const = default;
};

struct CheckpointData {
  int64_t global_step = 0;
  int64_t epoch = 0;
  std::string config_yaml;     // the resolved config
  std::string lintra_version;  // filled by save_checkpoint; read back by load_checkpoint
  std::string created_utc;     // filled by save_checkpoint ("2024-05-01T12:34:56Z")

  NamedTensors model;  // CPU tensors of any lintra dtype; any strides

  std::string optimizer_type;                      // "adam"
  std::map<std::string, double> optimizer_hparams;  // lr, beta1 … (not "type" or "step")
  int64_t optimizer_step = 0;
  // Slot ("exp_avg") -> tensors named like the model's; each name must be a model tensor's.
  std::map<std::string, NamedTensors> optimizer_slots;

  std::map<std::string, double> scheduler;
  std::vector<RankState> ranks = std::vector<RankState>(1);  // index: rank; the root's world_size is its size
  int64_t world_size() const { return int64_t(ranks.size()); }
  std::map<std::string, double> trainer;  // best metric, consecutive_nan_skips …
  std::vector<double> loss_history;       // optional; stored only when non-empty

  std::string source_path;  // set by load_checkpoint (not stored); prefixes check_against's messages
};

// Writes `data` to `path` atomically: `path.tmp` is written with every HDF5 return code checked,
// flushed, closed, fsynced, reopened and verified, then renamed to `path`, and the directory is
// fsynced. On failure the .tmp is removed, `path` is left as it was, and lintra::Error names `path`.
void save_checkpoint(const std::string& path, const CheckpointData& data);

// Reads and fully verifies a checkpoint (format, version, `complete`, every digest, the file
// digest, the optimizer tree against the model tree); throws lintra::Error naming the file and the
// tensor or field. Model tensors come back in the order they were saved.
CheckpointData load_checkpoint(const std::string& path);

struct VerifyReport {
  bool ok = false;
  std::vector<std::string> problems;  // every problem found; empty when ok
  int64_t datasets_checked = 0;       // datasets whose digest was recomputed
  int64_t bytes_checked = 0;
  uint64_t file_digest = 0;           // as stored
  int64_t global_step = -1;           // -1 when unreadable
};
// Like load_checkpoint but never throws for a bad file: reports every problem it can find.
VerifyReport verify_checkpoint(const std::string& path);

// What a model expects of one tensor.
struct TensorSpec {
  Shape shape;
  DType dtype = DType::f32;
};
// Every mismatch between the checkpoint's tensors and the model's, at once: missing, unexpected,
// shape and dtype, for /model and (for present entries) every optimizer slot. Each message is one
// line starting with data.source_path when set: "<file>: model tensor encoder.w: shape [4, 4] in
// the checkpoint, [4, 5] in the model". Empty when everything matches.
std::vector<std::string> check_against(const CheckpointData& data,
                                       const std::vector<std::pair<std::string, TensorSpec>>& expected);

// For `lintra ckpt info`: step, epoch, tensors and parameter count, optimizer, config size and
// digest (XXH3-64 of the YAML text, as train/config/config.h config_digest_hex), verification status.
// Never throws for a bad file: its problems are part of the description.
std::string describe_checkpoint(const std::string& path);

// For `lintra ckpt diff`: tensors compared by path ("/model/encoder/w", "/optimizer/exp_avg/…").
struct TensorDiff {
  enum class Kind { same, differs, only_in_a, only_in_b, shape_or_dtype };
  std::string path;
  Kind kind = Kind::same;
  double max_abs_diff = 0;  // for same/differs
  std::string a, b;         // descriptions ("float32[4, 4]"), empty when absent
};
std::vector<TensorDiff> diff_checkpoints(const std::string& a, const std::string& b);
std::string format_diff(const std::vector<TensorDiff>& diffs);  // one line per tensor + a summary

// --- the run directory's checkpoints/ --------------------------------------------------------------

// Writes `text` to `path` atomically (path.tmp, fsync, rename, fsync of the directory).
void write_file_atomically(const std::string& path, const std::string& text);
// fsyncs a directory so that renames and creations in it are durable.
void fsync_directory(const std::string& dir);

struct LoadedCheckpoint {
  std::string path;
  CheckpointData data;
};

// Manages dir/step_<N>.h5, dir/latest (the newest saved file's name) and dir/best.h5.
// Retention after each save: the newest `keep_last` step files, every step that is a multiple of
// `keep_every` (when > 0), and the one `latest` names are kept; other step_<N>.h5 are deleted.
// Leftover *.tmp files of an interrupted save are ignored and removed by the next save. No other
// file in `dir` is ever touched.
// What a user may name on the command line for "a checkpoint": an .h5 file; a `latest` pointer
// file (→ the file it names beside it); a checkpoints/ folder or a run directory holding one (→ its
// `latest`). When `latest` is missing or names a file that is gone, it falls back as `lintra train`
// does to the newest step_<N>.h5 that verifies, saying so through `log`. Throws naming the argument
// when it resolves to nothing.
std::string resolve_checkpoint_path(const std::string& argument,
                                    const std::function<void(const std::string&)>& log = {});

class CheckpointManager {
 public:
  using Log = std::function<void(const std::string&)>;

  // create: make `dir` when missing (false: only read what is there).
  CheckpointManager(std::string dir, int64_t keep_last = 3, int64_t keep_every = 0, bool create = true);

  // Saves step_<step>.h5, then points `latest` at it, then applies retention. Returns its path.
  std::string save(int64_t step, const CheckpointData& data);
  std::string save_best(const CheckpointData& data);  // dir/best.h5

  // The newest step file that loads and verifies. A broken one is skipped with a loud message
  // through `log`, falling back to the one before; a note says when `latest` names another file
  // (older, or one that no longer exists). nullopt when there is none.
  std::optional<LoadedCheckpoint> load_latest(const Log& log = {}) const;
  // The path load_latest would load, found by verifying (the tensors are not kept).
  std::optional<std::string> newest_complete(const Log& log = {}) const;

  std::vector<int64_t> steps() const;  // of the step_<N>.h5 files present, ascending
  std::string path_for_step(int64_t step) const;
  std::optional<std::string> latest_name() const;  // dir/latest's content, if any
  const std::string& dir() const { return dir_; }

 private:
  std::string latest_note(const std::string& chosen) const;
  void remove_stale_tmp() const;
  void apply_retention() const;

  std::string dir_;
  int64_t keep_last_;
  int64_t keep_every_;
};

}  // namespace lintra
