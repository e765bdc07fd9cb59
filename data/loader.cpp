// loader.cpp — epoch plans, collation into padded tensors, and the prefetch thread.
#include "data/loader.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"
#include "core/rng.h"

namespace lintra::data {

std::string LoaderPosition::to_string() const { return fmt::format("epoch {} batch {}", epoch, batch_index); }

// --- collation -----------------------------------------------------------------------------------

namespace {

enum class InputKind { bytes, tokens, features };

InputKind input_kind(const Sample& s) {
  if (!s.bytes.empty()) return InputKind::bytes;
  if (!s.tokens.empty()) return InputKind::tokens;
  return InputKind::features;
}

const char* kind_name(InputKind k) {
  switch (k) {
    case InputKind::bytes: return "bytes";
    case InputKind::tokens: return "tokens";
    case InputKind::features: return "features";
  }
  return "?";
}

template <typename T> Tensor filled(const Shape& shape, DType dtype, T value) {
  Tensor t = Tensor::empty(shape, dtype);
  std::fill_n(t.data<T>(), t.numel(), value);
  return t;
}

}  // namespace

Batch collate(const std::vector<Sample>& samples, int64_t pad_value) {
  LINTRA_CHECK(!samples.empty(), "collate: no samples");
  const int64_t B = int64_t(samples.size());
  const Sample& first = samples[0];
  first.validate();
  const InputKind kind = input_kind(first);
  const bool has_label = first.label >= 0;
  bool has_targets = false, has_mask = false;
  int64_t max_len = 0, max_targets = 0, max_mask = 0;
  for (int64_t b = 0; b < B; ++b) {
    const Sample& s = samples[size_t(b)];
    s.validate();
    LINTRA_CHECK(input_kind(s) == kind, "collate: sample {} of the batch has {} input but sample 0 has {}", b,
                 kind_name(input_kind(s)), kind_name(kind));
    LINTRA_CHECK(s.feature_dim == first.feature_dim, "collate: sample {} has feature_dim {} but sample 0 has {}",
                 b, s.feature_dim, first.feature_dim);
    LINTRA_CHECK((s.label >= 0) == has_label, "collate: sample {} {} a label but sample 0 {}", b,
                 s.label >= 0 ? "has" : "lacks", has_label ? "has one" : "does not");
    max_len = std::max(max_len, s.length());
    max_targets = std::max(max_targets, int64_t(s.targets.size()));
    max_mask = std::max(max_mask, int64_t(s.mask.size()));
    has_targets = has_targets || !s.targets.empty();
    has_mask = has_mask || !s.mask.empty();
  }

  Batch batch;
  batch.lengths = Tensor::empty({B}, DType::i64);
  int64_t* lengths = batch.lengths.data<int64_t>();
  if (kind == InputKind::features) {
    const int64_t F = first.feature_dim;
    batch.features = filled<float>({B, max_len, F}, DType::f32, 0.0f);
    float* out = batch.features.data<float>();
    for (int64_t b = 0; b < B; ++b) {
      const Sample& s = samples[size_t(b)];
      std::copy(s.features.begin(), s.features.end(), out + b * max_len * F);
      lengths[b] = s.length();
    }
  } else {
    batch.inputs = filled<int64_t>({B, max_len}, DType::i64, pad_value);
    int64_t* out = batch.inputs.data<int64_t>();
    for (int64_t b = 0; b < B; ++b) {
      const Sample& s = samples[size_t(b)];
      if (kind == InputKind::bytes) std::copy(s.bytes.begin(), s.bytes.end(), out + b * max_len);
      else std::copy(s.tokens.begin(), s.tokens.end(), out + b * max_len);
      lengths[b] = s.length();
    }
  }
  if (has_targets) {
    batch.targets = filled<int64_t>({B, max_targets}, DType::i64, pad_value);
    batch.target_lengths = Tensor::empty({B}, DType::i64);
    for (int64_t b = 0; b < B; ++b) {
      const Sample& s = samples[size_t(b)];
      std::copy(s.targets.begin(), s.targets.end(), batch.targets.data<int64_t>() + b * max_targets);
      batch.target_lengths.data<int64_t>()[b] = int64_t(s.targets.size());
    }
  }
  if (has_mask) {
    batch.mask = filled<uint8_t>({B, max_mask}, DType::u8, uint8_t(0));
    for (int64_t b = 0; b < B; ++b) {
      const Sample& s = samples[size_t(b)];
      std::copy(s.mask.begin(), s.mask.end(), batch.mask.data<uint8_t>() + b * max_mask);
    }
  }
  if (has_label) {
    batch.labels = Tensor::empty({B}, DType::i64);
    for (int64_t b = 0; b < B; ++b) batch.labels.data<int64_t>()[b] = samples[size_t(b)].label;
  }
  return batch;
}

// --- the loader ----------------------------------------------------------------------------------

DataLoader::DataLoader(const Dataset& dataset, const LoaderOptions& options) : dataset_(dataset), opt_(options) {
  const int64_t n = dataset_.size();
  LINTRA_CHECK(n > 0, "DataLoader: data set '{}' is empty", dataset_.name());
  LINTRA_CHECK(opt_.batch_size > 0, "DataLoader: batch_size must be positive, got {}", opt_.batch_size);
  LINTRA_CHECK(opt_.world_size >= 1 && opt_.rank >= 0 && opt_.rank < opt_.world_size,
               "DataLoader: rank {} of world_size {} (need 0 <= rank < world_size)", opt_.rank, opt_.world_size);
  LINTRA_CHECK(opt_.world_size == 1 || opt_.drop_last,
               "DataLoader: {} ranks need drop_last, so that every rank gets a full batch", opt_.world_size);
  const int64_t G = opt_.global_batch();
  LINTRA_CHECK(!opt_.drop_last || G <= n,
               "DataLoader: {} is larger than data set '{}' ({} samples) and drop_last is on, so an epoch would have "
               "no batches",
               opt_.world_size == 1 ? fmt::format("batch_size {}", G)
                                    : fmt::format("the global batch {} ({} ranks × {})", G, opt_.world_size, opt_.batch_size),
               dataset_.name(), n);
  LINTRA_CHECK(opt_.prefetch >= 0, "DataLoader: prefetch must be >= 0, got {}", opt_.prefetch);
  LINTRA_CHECK(!opt_.bucket_by_length || opt_.bucket_window > 0,
               "DataLoader: bucket_window must be positive, got {}", opt_.bucket_window);
  batches_per_epoch_ = opt_.drop_last ? n / G : (n + G - 1) / G;
  if (opt_.bucket_by_length) {
    lengths_.resize(size_t(n));
    for (int64_t i = 0; i < n; ++i) lengths_[size_t(i)] = dataset_.length(i);
  }
}

DataLoader::~DataLoader() { stop_worker(); }

std::vector<std::vector<int64_t>> DataLoader::epoch_plan(int64_t epoch) const {
  std::vector<std::vector<int64_t>> plan = global_epoch_plan(epoch);
  if (opt_.world_size == 1) return plan;
  const auto B = std::ptrdiff_t(opt_.batch_size), r = std::ptrdiff_t(opt_.rank);
  for (std::vector<int64_t>& batch : plan) batch = std::vector<int64_t>(batch.begin() + r * B, batch.begin() + (r + 1) * B);
  return plan;
}

Reshard DataLoader::reshard(const LoaderPosition& saved, int64_t saved_world_size) const {
  LINTRA_CHECK(saved_world_size >= 1, "DataLoader::reshard: saved world size {}", saved_world_size);
  if (saved_world_size == opt_.world_size) return {saved, saved.batch_index * opt_.global_batch(), 0, true};
  Reshard r;
  r.done = saved.batch_index * opt_.batch_size * saved_world_size;
  const int64_t G = opt_.global_batch();
  const int64_t index = std::min((r.done + G - 1) / G, batches_per_epoch_);  // past the last batch: the next epoch
  r.skipped = std::max<int64_t>(0, index * G - r.done);
  r.position = index == batches_per_epoch_ ? LoaderPosition{saved.epoch + 1, 0} : LoaderPosition{saved.epoch, index};
  r.exact = !opt_.bucket_by_length;
  return r;
}

std::vector<std::vector<int64_t>> DataLoader::global_epoch_plan(int64_t epoch) const {
  LINTRA_CHECK(epoch >= 0, "DataLoader: negative epoch {}", epoch);
  const int64_t n = dataset_.size(), B = opt_.global_batch();
  Generator gen(opt_.seed, uint64_t(epoch));
  std::vector<int64_t> order;
  if (opt_.shuffle) {
    order = gen.randperm(n);
  } else {
    order.resize(size_t(n));
    for (int64_t i = 0; i < n; ++i) order[size_t(i)] = i;
  }
  if (opt_.drop_last) order.resize(size_t(batches_per_epoch_ * B));
  if (opt_.bucket_by_length) {
    const size_t window = size_t(opt_.bucket_window * B);
    for (size_t start = 0; start < order.size(); start += window) {
      auto end = order.begin() + std::min(order.size(), start + window);
      std::stable_sort(order.begin() + start, end,
                       [&](int64_t a, int64_t b) { return lengths_[size_t(a)] < lengths_[size_t(b)]; });
    }
  }
  std::vector<std::vector<int64_t>> plan;
  for (size_t start = 0; start < order.size(); start += size_t(B)) {
    plan.emplace_back(order.begin() + start, order.begin() + std::min(order.size(), start + size_t(B)));
  }
  if (opt_.bucket_by_length && opt_.shuffle) {
    for (int64_t i = int64_t(plan.size()) - 1; i > 0; --i) {
      std::swap(plan[size_t(i)], plan[size_t(gen.randint(0, i + 1))]);
    }
  }
  return plan;
}

LoaderPosition DataLoader::advance(LoaderPosition p) const {
  if (++p.batch_index == batches_per_epoch_) return {p.epoch + 1, 0};
  return p;
}

Batch DataLoader::make_batch(const LoaderPosition& p) {
  if (plan_epoch_ != p.epoch) {
    plan_ = epoch_plan(p.epoch);
    plan_epoch_ = p.epoch;
  }
  const std::vector<int64_t>& indices = plan_[size_t(p.batch_index)];
  std::vector<Sample> samples;
  samples.reserve(indices.size());
  for (int64_t i : indices) samples.push_back(dataset_.get(i));
  Batch batch = collate(samples, opt_.pad_value);
  batch.position = p;
  batch.indices = indices;
  return batch;
}

void DataLoader::seek(const LoaderPosition& position) {
  LINTRA_CHECK(position.epoch >= 0 && position.batch_index >= 0 && position.batch_index <= batches_per_epoch_,
               "DataLoader::seek: position ({}) out of range: epoch >= 0 and batch in [0, {}]", position.to_string(),
               batches_per_epoch_);
  stop_worker();
  pos_ = position.batch_index == batches_per_epoch_ ? LoaderPosition{position.epoch + 1, 0} : position;
}

Batch DataLoader::next() {
  if (opt_.prefetch == 0) {
    Batch batch = make_batch(pos_);
    pos_ = advance(pos_);
    return batch;
  }
  if (!worker_.joinable()) start_worker();
  Item item;
  {
    std::unique_lock<std::mutex> lock(mu_);
    not_empty_.wait(lock, [&] { return !queue_.empty(); });
    item = std::move(queue_.front());
    queue_.pop_front();
  }
  not_full_.notify_one();
  if (item.error) {
    stop_worker();  // the worker has stopped after the error; the next call restarts at pos_
    std::rethrow_exception(item.error);
  }
  pos_ = advance(item.batch.position);
  return std::move(item.batch);
}

void DataLoader::start_worker() {
  produce_pos_ = pos_;
  stop_ = false;
  worker_ = std::thread([this] { worker_loop(); });
}

void DataLoader::stop_worker() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  not_full_.notify_all();
  if (worker_.joinable()) worker_.join();
  queue_.clear();
  stop_ = false;
}

void DataLoader::worker_loop() {
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      not_full_.wait(lock, [&] { return stop_ || int64_t(queue_.size()) < opt_.prefetch; });
      if (stop_) return;
    }
    Item item;
    try {
      item.batch = make_batch(produce_pos_);
    } catch (...) {
      item.error = std::current_exception();
    }
    const bool failed = item.error != nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) return;
      queue_.push_back(std::move(item));
    }
    not_empty_.notify_one();
    if (failed) return;
    produce_pos_ = advance(produce_pos_);
  }
}

}  // namespace lintra::data
