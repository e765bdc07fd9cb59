// speech_corpus_file.cpp — the split file format: consistency checks, atomic HDF5 write, checked read
// (see speech_corpus.h for the layout).
#include <fmt/format.h>

#include <cmath>
#include <set>

#include "core/error.h"
#include "data/speech/fbank.h"
#include "data/files/h5.h"
#include "data/speech/speech_corpus.h"

namespace lintra::data {

namespace fs = std::filesystem;

namespace {

constexpr double kStdFloor = 1e-5;
constexpr const char* kFeatureDescription =
    "log-mel filterbank: 16 kHz, 25 ms Hamming window, 10 ms hop, DC removal, pre-emphasis 0.97, "
    "512-point FFT power, 40 triangular mel filters 20-8000 Hz, ln with floor 1e-10";

// Throws unless `offsets` has n + 1 entries, starts at 0, rises by at least 1 per utterance and ends
// at `total`; `what` names the array ("frame_offsets").
void check_offsets(const std::vector<int64_t>& offsets, const SpeechSplitData& d, int64_t total, const char* what,
                   const char* unit, const std::string& where) {
  const size_t n = d.ids.size();
  LINTRA_CHECK(offsets.size() == n + 1, "{}: {} has {} entries, expected {} (utterances + 1)", where, what,
               offsets.size(), n + 1);
  LINTRA_CHECK(offsets[0] == 0, "{}: {}[0] is {}, expected 0", where, what, offsets[0]);
  for (size_t i = 0; i < n; ++i) {
    LINTRA_CHECK(offsets[i + 1] > offsets[i], "{}: utterance '{}' (index {}) has {} {} ({} {} -> {})", where,
                 d.ids[i], i, offsets[i + 1] - offsets[i], unit, what, offsets[i], offsets[i + 1]);
  }
  LINTRA_CHECK(offsets[n] == total, "{}: {} ends at {} but there are {} {}", where, what, offsets[n], total, unit);
}

void check_stats(const std::vector<double>& v, const char* what, bool positive, const std::string& where) {
  LINTRA_CHECK(int64_t(v.size()) == kFbankDim, "{}: {} has {} values, expected {}", where, what, v.size(), kFbankDim);
  for (size_t j = 0; j < v.size(); ++j) {
    LINTRA_CHECK(std::isfinite(v[j]) && (!positive || v[j] > 0.0), "{}: {}[{}] is {}{}", where, what, j, v[j],
                 positive ? " (expected a finite positive value)" : " (expected a finite value)");
  }
}

}  // namespace

void check_speech_split_data(const SpeechSplitData& d, const std::string& where) {
  check_speech_split(d.split);
  const size_t n = d.ids.size();
  LINTRA_CHECK(n > 0, "{}: the {} split holds no utterances", where, d.split);
  std::set<std::string> unique;
  for (const std::string& id : d.ids) {
    LINTRA_CHECK(!id.empty() && id.find_first_of(" \t\r\n") == std::string::npos,
                 "{}: utterance id '{}' is empty or contains blanks", where, id);
    LINTRA_CHECK(unique.insert(id).second, "{}: duplicate utterance id '{}'", where, id);
  }
  LINTRA_CHECK(d.features.size() % size_t(kFbankDim) == 0, "{}: {} feature values are not whole frames of {}",
               where, d.features.size(), kFbankDim);
  check_offsets(d.frame_offsets, d, int64_t(d.features.size()) / kFbankDim, "frame_offsets", "frames", where);
  check_offsets(d.phone_offsets, d, int64_t(d.phones.size()), "phone_offsets", "phones", where);
  LINTRA_CHECK(d.num_samples.size() == n, "{}: num_samples has {} entries, expected {}", where, d.num_samples.size(), n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t samples = d.num_samples[i], frames = d.num_frames(int64_t(i));
    LINTRA_CHECK(samples >= kFbankWindow && fbank_num_frames(samples) == frames,
                 "{}: utterance '{}' has {} frames but {} samples, which give {}", where, d.ids[i], frames, samples,
                 samples >= kFbankWindow ? fmt::format("{} frames", fbank_num_frames(samples))
                                         : std::string("none (shorter than one 400-sample window)"));
  }
  for (size_t i = 0; i < n; ++i) {
    for (int64_t p = d.phone_offsets[i]; p < d.phone_offsets[i + 1]; ++p) {
      const int64_t id = d.phones[size_t(p)];
      LINTRA_CHECK(id >= 1 && id <= kNumPhones, "{}: utterance '{}': phone id {} at phones[{}] is not in 1 … {}",
                   where, d.ids[i], id, p, kNumPhones);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    for (int64_t k = d.frame_offsets[i] * kFbankDim; k < d.frame_offsets[i + 1] * kFbankDim; ++k) {
      if (!std::isfinite(d.features[size_t(k)])) [[unlikely]] {
        LINTRA_FAIL("{}: utterance '{}': non-finite feature value {} at frame {} dimension {} (features row {})", where, d.ids[i],
                    d.features[size_t(k)], k / kFbankDim - d.frame_offsets[i], k % kFbankDim, k / kFbankDim);
      }
    }
  }
  check_stats(d.mean, "feature_mean", false, where);
  check_stats(d.std, "feature_std", true, where);
}

void feature_stats(const std::vector<float>& features, std::vector<double>& mean, std::vector<double>& std) {
  const size_t dim = size_t(kFbankDim), frames = features.size() / dim;
  LINTRA_CHECK(frames > 0 && features.size() % dim == 0, "feature_stats: {} values are not whole, non-zero frames",
               features.size());
  mean.assign(dim, 0.0);
  std.assign(dim, 0.0);
  for (size_t t = 0; t < frames; ++t)
    for (size_t j = 0; j < dim; ++j) mean[j] += double(features[t * dim + j]);
  for (double& m : mean) m /= double(frames);
  for (size_t t = 0; t < frames; ++t) {
    for (size_t j = 0; j < dim; ++j) {
      const double c = double(features[t * dim + j]) - mean[j];
      std[j] += c * c;
    }
  }
  for (double& s : std) s = std::max(std::sqrt(s / double(frames)), kStdFloor);
}

namespace {

std::string join_ids(const std::vector<std::string>& ids) {
  std::string s;
  for (const auto& id : ids) {
    if (!s.empty()) s += '\n';
    s += id;
  }
  return s;
}

std::vector<std::string> split_ids(const std::string& s) {
  std::vector<std::string> ids;
  if (s.empty()) return ids;
  size_t start = 0;
  for (;;) {
    size_t nl = s.find('\n', start);
    ids.push_back(s.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) return ids;
    start = nl + 1;
  }
}

template <typename T>
void put(const h5::File& f, const char* name, DType dtype, const std::vector<T>& v, Shape shape = {}) {
  if (shape.empty()) shape = {int64_t(v.size())};
  f.create_dataset(name, dtype, shape, v.data());
}

// Reads a dataset of rank `rank` whose element type is `dtype`.
template <typename T>
std::vector<T> get(const h5::File& f, const char* name, DType dtype, size_t rank, Shape* shape_out = nullptr) {
  h5::Dataset ds = f.open_dataset(name);
  if (ds.dtype() != dtype) ds.fail(fmt::format("element type {}, expected {}", dtype_name(ds.dtype()), dtype_name(dtype)));
  Shape shape = ds.shape();
  if (shape.size() != rank) ds.fail(fmt::format("shape {}, expected rank {}", shape_str(shape), rank));
  std::vector<T> v(size_t(numel_of(shape)));
  ds.read(dtype, v.data(), int64_t(v.size()));
  if (shape_out) *shape_out = shape;
  return v;
}

}  // namespace

void write_speech_split(const fs::path& file, const SpeechSplitData& d) {
  check_speech_split_data(d, file.string());
  const fs::path tmp = file.string() + ".tmp";
  if (file.has_parent_path()) fs::create_directories(file.parent_path());
  try {
    h5::File f = h5::File::create(tmp.string());
    f.set_attr("format", kSpeechFormat);
    f.set_attr("version", kSpeechFormatVersion);
    f.set_attr("split", d.split);
    f.set_attr("feature_dim", kFbankDim);
    f.set_attr("sample_rate", kFbankSampleRate);
    f.set_attr("phone_set", fmt::format("{}", fmt::join(phone_set(), " ")));
    f.set_attr("stats_split", "train");
    f.set_attr("features", kFeatureDescription);
    put(f, "features", DType::f32, d.features, {d.total_frames(), kFbankDim});
    put(f, "frame_offsets", DType::i64, d.frame_offsets);
    put(f, "num_samples", DType::i64, d.num_samples);
    put(f, "phones", DType::i64, d.phones);
    put(f, "phone_offsets", DType::i64, d.phone_offsets);
    f.write_string("utterance_ids", join_ids(d.ids));
    put(f, "feature_mean", DType::f64, d.mean);
    put(f, "feature_std", DType::f64, d.std);
    f.flush();
    f.close();
    fs::rename(tmp, file);
  } catch (...) {
    std::error_code ec;
    fs::remove(tmp, ec);
    throw;
  }
}

SpeechSplitData read_speech_split(const fs::path& file) {
  const std::string where = file.string();
  h5::File f = h5::File::open(where);
  LINTRA_CHECK(f.has_attr("format") && f.attr_class("format") == 's' && f.attr_str("format") == kSpeechFormat,
               "{}: not a lintra speech split file (attribute 'format' is not '{}'); prepare it with "
               "`lintra data prepare speech` or `lintra data prepare espeak-speech`", where, kSpeechFormat);
  const int64_t version = f.attr_i64("version");
  LINTRA_CHECK(version == kSpeechFormatVersion, "{}: speech split format version {}, this lintra reads version {}; "
               "prepare the corpus again", where, version, kSpeechFormatVersion);
  LINTRA_CHECK(f.attr_i64("feature_dim") == kFbankDim, "{}: feature_dim {}, expected {}", where,
               f.attr_i64("feature_dim"), kFbankDim);
  const std::string phones = f.attr_str("phone_set"), expected = fmt::format("{}", fmt::join(phone_set(), " "));
  LINTRA_CHECK(phones == expected, "{}: phone_set '{}' differs from this lintra's '{}'", where, phones, expected);
  SpeechSplitData d;
  d.split = f.attr_str("split");
  Shape fshape;
  d.features = get<float>(f, "features", DType::f32, 2, &fshape);
  LINTRA_CHECK(fshape[1] == kFbankDim, "{}: dataset /features has shape {}, expected (frames, {})", where,
               shape_str(fshape), kFbankDim);
  d.frame_offsets = get<int64_t>(f, "frame_offsets", DType::i64, 1);
  d.num_samples = get<int64_t>(f, "num_samples", DType::i64, 1);
  d.phones = get<int64_t>(f, "phones", DType::i64, 1);
  d.phone_offsets = get<int64_t>(f, "phone_offsets", DType::i64, 1);
  d.ids = split_ids(f.open_dataset("utterance_ids").read_string());
  d.mean = get<double>(f, "feature_mean", DType::f64, 1);
  d.std = get<double>(f, "feature_std", DType::f64, 1);
  f.close();
  check_speech_split_data(d, where);
  return d;
}

}  // namespace lintra::data
