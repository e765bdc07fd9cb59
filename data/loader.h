// loader.h — DataLoader: batches of padded tensors from a Dataset, seeded shuffle, exact resume.
//
// Order. Epoch e visits the samples in the order Generator(seed, stream = e).randperm(n) (identity
// when shuffle is off) and cuts it into batches of batch_size; the last, smaller batch is dropped
// when drop_last. With bucket_by_length, each window of bucket_window consecutive batches' worth of
// that order is stably sorted by Dataset::length and cut into batches, and the batch order is then
// shuffled with the same generator (when shuffle is on), so batches hold similar lengths but the
// epoch is still a permutation. An epoch is thus a pure function of (seed, epoch, options).
//
// Ranks. With world_size K > 1 (data-parallel training), batch_size is one rank's batch B: the
// epoch above is planned for global batches of K·B (the same permutation, cut, bucketed and
// shuffled as one loader of batch K·B would), and rank r takes rows [r·B, (r+1)·B) of each. K ranks
// thus see, per update, exactly the samples one loader of batch K·B sees — every sample once per
// epoch over all ranks — and every rank has the same position (global batches). K > 1 needs
// drop_last (every rank gets a full batch). reshard() maps a position saved with another K.
//
// Stream of batches. next() returns batches in order, epoch after epoch, forever; a trainer counts
// batches_per_epoch() calls per epoch. position() is the next batch next() will return, always
// normalised ({e, batches_per_epoch()} becomes {e+1, 0}); seek(p) moves there, so a run resumed
// from a saved LoaderPosition sees exactly the batches an uninterrupted run would.
//
// Prefetch. With prefetch = k > 0 one background thread makes up to k batches ahead (dataset reads
// and collation) into a bounded queue; seek() and the destructor stop and join it. Batches are
// identical with or without prefetch. An exception thrown while making a batch is rethrown by the
// next() that would have returned it. The Dataset must outlive the loader and its get() must be
// thread-safe (dataset.h).
//
// Errors: an empty data set, batch_size <= 0, a global batch > size() with drop_last (the epoch would
// be empty; without drop_last a batch larger than the data set is allowed: one batch of everything),
// prefetch < 0, bucket_window <= 0, rank outside [0, world_size), world_size > 1 without drop_last.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/tensor.h"
#include "data/dataset.h"

namespace lintra::data {

struct LoaderOptions {
  int64_t batch_size = 32;
  bool shuffle = true;
  uint64_t seed = 0;
  bool drop_last = false;
  int64_t pad_value = 0;          // padding of inputs and targets (features pad with 0, masks with 0)
  bool bucket_by_length = false;
  int64_t bucket_window = 50;     // batches per length-sorting window when bucket_by_length
  int64_t prefetch = 2;           // batches made ahead on a background thread; 0 = synchronous
  int64_t rank = 0;               // this rank of world_size (see "Ranks" above)
  int64_t world_size = 1;
  int64_t global_batch() const { return batch_size * world_size; }
};

// Where a loader stands: the next batch it will return. Two integers to checkpoint.
struct LoaderPosition {
  int64_t epoch = 0;
  int64_t batch_index = 0;
  bool operator==(const LoaderPosition&) const = default;
  std::string to_string() const;  // "epoch 3 batch 17"
};

// A batch of B samples. Fields a task does not use stay undefined (Tensor::defined() is false).
struct Batch {
  LoaderPosition position;        // which batch of which epoch this is
  std::vector<int64_t> indices;   // data set index of each row
  Tensor inputs;          // int64 (B, L): bytes (widened) or tokens, padded with pad_value
  Tensor features;        // float32 (B, T, F), zero padded
  Tensor lengths;         // int64 (B): valid length of each row of inputs / features
  Tensor targets;         // int64 (B, S), padded with pad_value; defined when any sample has targets
  Tensor target_lengths;  // int64 (B)
  Tensor mask;            // uint8 (B, M), zero padded; defined when any sample of the batch has a mask
  Tensor labels;          // int64 (B)
  int64_t size() const { return int64_t(indices.size()); }
};

// Where a loader continues a run saved by another number of ranks (the global batch changed from
// `from` to `to` samples): the first batch whose samples all come after the `done` samples the saved
// position had consumed of its epoch; `skipped` samples of the epoch are passed over to get there
// (fewer than `to`). Exact (the remaining samples of the epoch are those the saved run had left, less
// the skipped ones) unless bucket_by_length, whose batches of another size are other groups.
struct Reshard {
  LoaderPosition position;
  int64_t done = 0, skipped = 0;
  bool exact = true;
};

// Stacks samples into a Batch (position and indices left for the caller). All samples must carry the
// same input kind (and feature_dim) and either all or none a label; throws naming the sample.
Batch collate(const std::vector<Sample>& samples, int64_t pad_value);

class DataLoader {
 public:
  DataLoader(const Dataset& dataset, const LoaderOptions& options);
  ~DataLoader();
  DataLoader(const DataLoader&) = delete;
  DataLoader& operator=(const DataLoader&) = delete;

  int64_t batches_per_epoch() const { return batches_per_epoch_; }
  Batch next();
  LoaderPosition position() const { return pos_; }
  void seek(const LoaderPosition& position);
  void reset(int64_t epoch) { seek({epoch, 0}); }
  // The position of this loader that continues `saved`, written by `saved_world_size` ranks of this
  // batch_size (see Reshard). The same position when the world size is this one's.
  Reshard reshard(const LoaderPosition& saved, int64_t saved_world_size) const;

  // The sample indices of every batch of `epoch`, in order (what next() will return for it: this
  // rank's rows of each global batch).
  std::vector<std::vector<int64_t>> epoch_plan(int64_t epoch) const;
  // The global batches of `epoch` (K·B samples each), the same on every rank.
  std::vector<std::vector<int64_t>> global_epoch_plan(int64_t epoch) const;

  const Dataset& dataset() const { return dataset_; }
  const LoaderOptions& options() const { return opt_; }

 private:
  struct Item {
    Batch batch;
    std::exception_ptr error;
  };
  LoaderPosition advance(LoaderPosition p) const;
  Batch make_batch(const LoaderPosition& p);  // producer side: uses the plan cache
  void start_worker();
  void stop_worker();
  void worker_loop();

  const Dataset& dataset_;
  LoaderOptions opt_;
  int64_t batches_per_epoch_ = 0;
  LoaderPosition pos_;  // consumer side: the next batch next() returns

  // Producer side: touched only by the worker while it runs, else by the caller.
  int64_t plan_epoch_ = -1;
  std::vector<std::vector<int64_t>> plan_;
  std::vector<int64_t> lengths_;  // Dataset::length of every sample (bucketing only), set in the constructor
  LoaderPosition produce_pos_;

  // Prefetch thread and its bounded queue.
  std::thread worker_;
  std::mutex mu_;
  std::condition_variable not_full_, not_empty_;
  std::deque<Item> queue_;
  bool stop_ = false;
};

}  // namespace lintra::data
