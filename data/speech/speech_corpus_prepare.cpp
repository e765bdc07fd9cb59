// speech_corpus_prepare.cpp — prepare_speech: manifest → features on every thread → three split files
// (see speech_corpus.h).
#include <fmt/format.h>
#include <omp.h>

#include <chrono>
#include <cmath>
#include <exception>

#include "core/error.h"
#include "data/speech/fbank.h"
#include "data/speech/speech_corpus.h"
#include "data/speech/wav.h"

namespace lintra::data {

namespace fs = std::filesystem;

namespace {

// Features of one manifest row; errors are prefixed with "<manifest>:<line>: utterance '<id>'".
std::vector<float> utterance_features(const Manifest& m, const ManifestEntry& e, const PrepareSpeechOptions& opt,
                                      int64_t& num_samples) {
  const std::string where = fmt::format("{}: utterance '{}'", m.where(e), e.id);
  std::vector<float> feats;
  try {
    LINTRA_CHECK(fs::exists(e.wav), "WAV file '{}' does not exist", e.wav.string());
    Wav wav = read_wav(e.wav);
    num_samples = int64_t(wav.samples.size());
    LINTRA_CHECK(num_samples >= kFbankWindow,
                 "'{}' holds {} samples ({:.1f} ms), fewer than one 25 ms window ({} samples): a zero-length "
                 "utterance", e.wav.string(), num_samples, 1000.0 * double(num_samples) / kFbankSampleRate, kFbankWindow);
    feats = default_fbank().compute(wav.samples);
  } catch (const Error& err) {
    throw Error(fmt::format("{}: {}", where, err.what()));
  }
  if (opt.feature_hook) opt.feature_hook(e.id, feats);
  for (size_t k = 0; k < feats.size(); ++k) {
    LINTRA_CHECK(std::isfinite(feats[k]), "{}: non-finite feature value {} at frame {} dimension {}", where, feats[k],
                 k / size_t(kFbankDim), k % size_t(kFbankDim));
  }
  return feats;
}

// The split's rows of the manifest, with features computed in parallel; deterministic.
SpeechSplitData compute_split(const Manifest& m, const std::string& split, const PrepareSpeechOptions& opt) {
  std::vector<const ManifestEntry*> rows;
  for (const ManifestEntry& e : m.entries)
    if (e.split == split) rows.push_back(&e);
  LINTRA_CHECK(!rows.empty(), "{}: no '{}' utterances (the manifest needs at least one in each of train, dev, test)",
               m.file.string(), split);
  const int64_t n = int64_t(rows.size());
  std::vector<std::vector<float>> feats(static_cast<size_t>(n));
  std::vector<int64_t> samples(size_t(n), 0);
  std::vector<std::exception_ptr> errors(static_cast<size_t>(n));
  const int threads = opt.threads > 0 ? opt.threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int64_t i = 0; i < n; ++i) {
    try {
      feats[size_t(i)] = utterance_features(m, *rows[size_t(i)], opt, samples[size_t(i)]);
    } catch (...) {
      errors[size_t(i)] = std::current_exception();
    }
  }
  for (const auto& e : errors)  // the first failing row in manifest order, whatever the thread count
    if (e) std::rethrow_exception(e);

  SpeechSplitData d;
  d.split = split;
  d.frame_offsets.push_back(0);
  d.phone_offsets.push_back(0);
  size_t total = 0;
  for (const auto& f : feats) total += f.size();
  d.features.reserve(total);
  for (int64_t i = 0; i < n; ++i) {
    const ManifestEntry& e = *rows[size_t(i)];
    d.ids.push_back(e.id);
    d.num_samples.push_back(samples[size_t(i)]);
    d.features.insert(d.features.end(), feats[size_t(i)].begin(), feats[size_t(i)].end());
    std::vector<float>().swap(feats[size_t(i)]);  // free as we go: peak memory stays about one copy
    d.frame_offsets.push_back(int64_t(d.features.size()) / kFbankDim);
    d.phones.insert(d.phones.end(), e.phones.begin(), e.phones.end());
    d.phone_offsets.push_back(int64_t(d.phones.size()));
  }
  return d;
}

}  // namespace

std::vector<SpeechSplitSummary> prepare_speech(const fs::path& manifest, const fs::path& out_dir,
                                               const PrepareSpeechOptions& options, const LogFn& log) {
  auto say = [&](const std::string& msg) {
    if (log) log(msg);
  };
  const Manifest m = read_manifest(manifest);
  for (const std::string& split : speech_splits()) {  // fail before any work when a split is empty
    bool any = false;
    for (const auto& e : m.entries) any = any || e.split == split;
    LINTRA_CHECK(any, "{}: no '{}' utterances (the manifest needs at least one in each of train, dev, test)",
                 manifest.string(), split);
  }
  fs::create_directories(out_dir);
  std::vector<double> mean, std;
  std::vector<SpeechSplitSummary> summary;
  for (const std::string& split : speech_splits()) {  // train first: its statistics go into every file
    const auto start = std::chrono::steady_clock::now();
    SpeechSplitData d = compute_split(m, split, options);
    if (split == "train") feature_stats(d.features, mean, std);
    d.mean = mean;
    d.std = std;
    SpeechSplitSummary s{split, out_dir / (split + ".h5"), d.size(), d.total_frames(), int64_t(d.phones.size()), 0};
    write_speech_split(s.file, d);
    s.bytes = int64_t(fs::file_size(s.file));
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    say(fmt::format("speech: {}: {} utterances, {} frames ({:.0f} per utterance), {} phones -> {} ({:.1f} MB, {:.1f} s)",
                    split, s.utterances, s.frames, double(s.frames) / double(s.utterances), s.phones, s.file.string(),
                    double(s.bytes) / 1e6, secs));
    summary.push_back(std::move(s));
  }
  return summary;
}

}  // namespace lintra::data
