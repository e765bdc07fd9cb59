// speech_corpus_dataset.cpp — SpeechDataset: one prepared split in memory, normalised on load
// (see speech_corpus.h).
#include <fmt/format.h>

#include "core/error.h"
#include "data/files/digest.h"
#include "data/speech/fbank.h"
#include "data/speech/speech_corpus.h"

namespace lintra::data {

namespace fs = std::filesystem;

namespace {

std::string dir_name(const fs::path& dir) {
  return (dir.filename().empty() ? dir.parent_path().filename() : dir.filename()).string();
}

}  // namespace

SpeechDataset::SpeechDataset(const fs::path& dir, const std::string& split)
    : file_(dir / (split + ".h5")), name_(dir_name(dir) + "/" + split) {
  check_speech_split(split);
  LINTRA_CHECK(fs::exists(file_), "speech data set {}: missing file '{}' (prepare it with `lintra data prepare "
               "espeak-speech` or `lintra data prepare speech --manifest FILE --out DIR`)", name_, file_.string());
  data_ = read_speech_split(file_);
  LINTRA_CHECK(data_.split == split, "{}: the file holds the '{}' split, expected '{}'", file_.string(), data_.split,
               split);
  Xxh3 h;
  for (const std::string& id : data_.ids) h.update(id.data(), id.size() + 1);  // with a separator byte
  h.update_vector(data_.num_samples);
  h.update_vector(data_.frame_offsets);
  h.update_vector(data_.features);
  h.update_vector(data_.phone_offsets);
  h.update_vector(data_.phones);
  h.update_vector(data_.mean);
  h.update_vector(data_.std);
  digest_ = h.digest();
  // Normalise once: (x − mean) / std with the train statistics stored in the file.
  const size_t dim = size_t(kFbankDim);
  std::vector<float> mean(dim), inv_std(dim);
  for (size_t j = 0; j < dim; ++j) {
    mean[j] = float(data_.mean[j]);
    inv_std[j] = float(1.0 / data_.std[j]);
  }
  for (size_t k = 0; k < data_.features.size(); ++k) {
    const size_t j = k % dim;
    data_.features[k] = (data_.features[k] - mean[j]) * inv_std[j];
  }
}

Sample SpeechDataset::get(int64_t i) const {
  check_index(i);
  Sample s;
  s.feature_dim = kFeatureDim;
  s.features.assign(data_.features.begin() + data_.frame_offsets[size_t(i)] * kFeatureDim,
                    data_.features.begin() + data_.frame_offsets[size_t(i) + 1] * kFeatureDim);
  s.targets.assign(data_.phones.begin() + data_.phone_offsets[size_t(i)],
                   data_.phones.begin() + data_.phone_offsets[size_t(i) + 1]);
  return s;
}

int64_t SpeechDataset::length(int64_t i) const {
  check_index(i);
  return data_.num_frames(i);
}

const std::string& SpeechDataset::utterance_id(int64_t i) const {
  check_index(i);
  return data_.ids[size_t(i)];
}

int64_t SpeechDataset::num_samples(int64_t i) const {
  check_index(i);
  return data_.num_samples[size_t(i)];
}

}  // namespace lintra::data
