#include "train/factories.h"

#include <algorithm>
#include <functional>

#include "core/rng.h"
#include "data/cache.h"
#include "data/images/cifar.h"
#include "data/copy/copy_task.h"
#include "data/images/idx.h"
#include "nn/models/copy_model.h"
#include "data/speech/speech_corpus.h"
#include "nn/models/image_model.h"
#include "nn/models/speech_model.h"
#include "train/experiment_config.h"

namespace lintra::train {

namespace {

namespace fs = std::filesystem;
constexpr int64_t kSpeechFeatureDim = 40;  // log-mel filterbank channels (DATA.md)
constexpr const char* kDebianFashionMnist = "/usr/share/datasets/fashion-mnist";  // package dataset-fashion-mnist

// Some samples of a data set, by index: a prefix (data.train_size) or a seeded subset (data.eval_size).
class Subset : public data::Dataset {
 public:
  Subset(std::unique_ptr<data::Dataset> inner, std::vector<int64_t> indices, std::string label)
      : inner_(std::move(inner)), indices_(std::move(indices)), label_(std::move(label)) {}
  int64_t size() const override { return int64_t(indices_.size()); }
  data::Sample get(int64_t i) const override { return inner_->get(indices_[size_t(i)]); }
  std::string name() const override { return fmt::format("{}{}", inner_->name(), label_); }
  int64_t length(int64_t i) const override { return inner_->length(indices_[size_t(i)]); }

 private:
  std::unique_ptr<data::Dataset> inner_;
  std::vector<int64_t> indices_;
  std::string label_;
};

void check_size(const data::Dataset& d, int64_t n, const char* key) {
  LINTRA_CHECK(n <= d.size(), "data.{}: asked for {} samples of {}, which has {}", key, n, d.name(), d.size());
}

// The first n samples (data.train_size; 0: all).
std::unique_ptr<data::Dataset> prefix(std::unique_ptr<data::Dataset> d, int64_t n) {
  if (n <= 0 || n == d->size()) return d;
  check_size(*d, n, "train_size");
  std::vector<int64_t> idx(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) idx[size_t(i)] = i;
  const std::string label = fmt::format("[:{}]", n);
  return std::make_unique<Subset>(std::move(d), std::move(idx), label);
}

// n samples drawn once by a fixed seed (data.eval_size; 0: all), in index order: every row and seed
// of a table is evaluated on the same samples, spread over the whole split (a prefix of MNIST's test
// split is not a sample of it).
constexpr uint64_t kEvalSubsetSeed = 0xe7a1;
std::unique_ptr<data::Dataset> seeded_subset(std::unique_ptr<data::Dataset> d, int64_t n) {
  if (n <= 0 || n == d->size()) return d;
  check_size(*d, n, "eval_size");
  Generator gen(kEvalSubsetSeed);
  std::vector<int64_t> perm = gen.randperm(d->size());
  perm.resize(size_t(n));
  std::sort(perm.begin(), perm.end());
  const std::string label = fmt::format("[{} of {}, seed {:#x}]", n, d->size(), kEvalSubsetSeed);
  return std::make_unique<Subset>(std::move(d), std::move(perm), label);
}

}  // namespace

std::filesystem::path speech_corpus_dir(const Config& cfg) {
  Config d = cfg.section("data");
  auto root = data::data_root(d.get_string("root"));
  const std::string name = d.get_string("name");
  if (name == "espeak-speech") return root / ("espeak-speech-" + d.get_string("corpus_size"));
  LINTRA_CHECK(name == "speech", "data.name: '{}' is not a speech data set", name);
  const std::string corpus = d.get_string("corpus");
  LINTRA_CHECK(!corpus.empty(), "data.corpus: a speech run needs the folder made by `lintra data prepare speech`");
  std::filesystem::path p(corpus);
  return p.is_absolute() ? p : root / p;
}

namespace {

// The copy task: three disjoint seeded draws (train, eval, test) of synthetic sequences.
DataSplits copy_task_splits(const Config& d, uint64_t seed, bool with_test) {
  data::CopyTaskOptions o;
  o.max_length = d.get_int("max_length");
  o.size = d.get_int("train_size") > 0 ? d.get_int("train_size") : 100000;
  o.seed = seed;
  DataSplits s;
  s.train = std::make_unique<data::CopyTaskDataset>(o);
  o.size = d.get_int("eval_size") > 0 ? d.get_int("eval_size") : 1280;
  o.seed = seed + 0x5eed;  // evaluation sequences are drawn apart from the training ones
  s.eval = std::make_unique<data::CopyTaskDataset>(o);
  if (with_test) {
    o.seed = seed + 0x7e57;  // a third, disjoint draw for `lintra eval`
    s.test = std::make_unique<data::CopyTaskDataset>(o);
  }
  return s;
}

// A data set read from files: the folder it lives in, how one split is opened, and the names of
// the splits the trainer learns from, evaluates on while training, and `lintra eval` reports.
struct SplitFiles {
  fs::path dir;
  std::function<std::unique_ptr<data::Dataset>(const fs::path& dir, const std::string& split)> open;
  const char* train;
  const char* eval;
  const char* test;
  std::string missing_hint = {};  // when `dir` lacks the train split's first file: what makes it ("": the reader says)
};

template <typename D>
std::unique_ptr<data::Dataset> open_split(const fs::path& dir, const std::string& split) {
  return std::make_unique<D>(dir, split);
}

SplitFiles split_files(const Config& cfg) {
  const std::string name = cfg.get_string("data.name");
  const fs::path root = data::data_root(cfg.get_string("data.root"));
  if (name == "mnist") return {root / "mnist", open_split<data::MnistDataset>, "train", "test", "test"};
  if (name == "fashion-mnist") {
    // Debian's dataset-fashion-mnist (gzipped IDX), unless a copy sits in the data cache.
    const fs::path dir = fs::exists(root / "fashion-mnist") ? root / "fashion-mnist" : fs::path(kDebianFashionMnist);
    return {dir, open_split<data::MnistDataset>, "train", "test", "test"};
  }
  if (name == "cifar10") {
    const std::string dir = (root / "cifar10").string();
    return {root / "cifar10", open_split<data::Cifar10Dataset>, "train", "test", "test",
            fmt::format("download CIFAR-10's binary version and unpack it there: `mkdir -p {0} && curl -L "
                        "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz | tar xz -C {0} --strip-components=1`"
                        "; or train on its stand-in, data.name=photos32 (`lintra data prepare photos32`)",
                        dir)};
  }
  // photos32: CIFAR-10's format, made by `lintra data prepare photos32`.
  if (name == "photos32")
    return {root / "photos32", open_split<data::Cifar10Dataset>, "train", "test", "test",
            "make it with `lintra data prepare photos32`"};
  if (name == "espeak-speech" || name == "speech")
    return {speech_corpus_dir(cfg), open_split<data::SpeechDataset>, "train", "dev", "test"};
  LINTRA_FAIL("data.name: unknown data set '{}'", name);
}

}  // namespace

DataSplits build_data(const Config& cfg, bool with_test) {
  Config d = cfg.section("data");
  if (d.get_string("name") == "copy") return copy_task_splits(d, uint64_t(cfg.get_int("seed")), with_test);
  const SplitFiles f = split_files(cfg);
  // CIFAR-10's format (the only sets with a hint): no first training batch, no data set here.
  LINTRA_CHECK(f.missing_hint.empty() || fs::is_regular_file(f.dir / data::Cifar10Dataset::split_files(f.train)[0]),
               "data.name {}: no data at {} (data root {}: data.root, else $LINTRA_DATA, else data/cache): {}",
               d.get_string("name"), f.dir.string(), data::data_root(d.get_string("root")).string(), f.missing_hint);
  DataSplits s;
  s.train = prefix(f.open(f.dir, f.train), d.get_int("train_size"));
  s.eval = seeded_subset(f.open(f.dir, f.eval), d.get_int("eval_size"));
  if (with_test) s.test = seeded_subset(f.open(f.dir, f.test), d.get_int("eval_size"));
  return s;
}

std::shared_ptr<nn::Model> build_model(const Config& cfg) {
  Config m = cfg.section("model");
  const std::string type = m.get_string("type");
  nn::TransformerOptions enc;
  enc.n_layers = m.get_int("layers");
  enc.n_heads = m.get_int("heads");
  enc.d_model = enc.n_heads * m.get_int("d_query");
  enc.d_ff = m.get_int("d_ff");
  enc.dropout = m.get_double("dropout");
  enc.activation = m.get_string("activation") == "gelu" ? nn::Activation::gelu : nn::Activation::relu;
  enc.pre_norm = m.get_bool("pre_norm");
  std::tie(enc.attention, enc.attention_params) = attention_options(cfg);
  const uint64_t seed = uint64_t(cfg.get_int("seed"));
  if (type == "copy") {
    nn::TokenTransformerOptions o;
    o.vocab = 11;
    o.positional = nn::positional_mode_from_string(m.get_string("positional"));
    o.encoder = enc;
    return std::make_shared<nn::CopyModel>(o, seed);
  }
  if (type == "image") {
    nn::TokenTransformerOptions o;
    o.vocab = 256;
    o.positional = nn::positional_mode_from_string(m.get_string("positional"));
    o.encoder = enc;
    return std::make_shared<nn::ImageModel>(o, seed, m.get_int("mixtures"));
  }
  if (type == "speech") {
    nn::SpeechTransformerOptions o;
    o.encoder = enc;
    o.positional = nn::positional_mode_from_string(m.get_string("positional"));
    o.input_dim = kSpeechFeatureDim;
    o.n_phones = data::kNumPhones;
    return std::make_shared<nn::SpeechTransformerModel>(o, seed);
  }
  if (type == "bilstm") {
    nn::BiLstmOptions o;
    o.input_dim = kSpeechFeatureDim;
    o.hidden_size = m.get_int("lstm_hidden");
    o.num_layers = m.get_int("lstm_layers");
    o.n_phones = data::kNumPhones;
    return std::make_shared<nn::BiLstmModel>(o, seed);
  }
  LINTRA_FAIL("model.type: unknown model type '{}' (valid: copy, image, speech, bilstm)", type);
}

nn::ModelBatch to_model_batch(const data::Batch& b) {
  nn::ModelBatch m;
  m.inputs = b.inputs;
  m.features = b.features;
  m.lengths = b.lengths;
  m.targets = b.targets;
  m.target_lengths = b.target_lengths;
  m.mask = b.mask;
  return m;
}

}  // namespace lintra::train
