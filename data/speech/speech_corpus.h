// speech_corpus.h — the real speech pipeline (DATA.md "espeak-speech and the real speech pipeline"):
// a manifest of WAVs with phone transcripts becomes one HDF5 file of 40-dim log-mel features per
// split, read back by SpeechDataset. WSJ converted to WAV and espeak-speech go through the same code.
//
// Phones. The 39-phone stressless CMU ARPAbet set, ids 1 … 39 in alphabetical order (phone_set());
// id 0 is the CTC blank. CMUdict stress digits (AH0, IY1) are accepted in manifests and removed.
//
// Manifest. UTF-8 text, one utterance per line, four TAB-separated fields:
//     split <TAB> utterance id <TAB> WAV path <TAB> phones separated by spaces
// split ∈ train | dev | test; the id is unique and has no blanks; the WAV path is absolute or
// relative to the manifest's folder; blank lines and lines starting with '#' are skipped. Every
// error names "<manifest>:<line>".
//
// Split file (<out>/<split>.h5, format "lintra-speech-split" version 1). Root attributes: format,
// version, split, feature_dim (40), sample_rate (16000), phone_set (the 39 names, space-separated),
// stats_split ("train"), features (a one-line description of the front end). Datasets, n utterances:
//     features       float32 (total_frames, 40)  raw log-mel values, utterances concatenated
//     frame_offsets  int64 (n + 1)   utterance i is frames [frame_offsets[i], frame_offsets[i + 1])
//     num_samples    int64 (n)       WAV length; frames = 1 + (num_samples − 400) / 160
//     phones         int64 (total_phones)  phone ids 1 … 39, concatenated
//     phone_offsets  int64 (n + 1)   utterance i's phones are [phone_offsets[i], phone_offsets[i + 1])
//     utterance_ids  string          the n ids, '\n'-separated, in manifest order
//     feature_mean   float64 (40)    per-dimension mean over every TRAIN frame (same in all three files)
//     feature_std    float64 (40)    per-dimension standard deviation over the train frames (floored at 1e-5)
// Files are written to "<name>.tmp" and renamed, so a reader never sees a partial file.
//
// Cost: features take about 18 ms per 8 s utterance on one core; prepare_speech uses every OpenMP
// thread and its output does not depend on the thread count.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "data/dataset.h"

namespace lintra::data {

// --- phones --------------------------------------------------------------------------------------

inline constexpr int64_t kNumPhones = 39;  // ids 1 … 39; 0 is the CTC blank

// The 39 names, phone_set()[id − 1] is the phone with that id.
const std::vector<std::string>& phone_set();
// The id (1 … 39) of an exact name ("AA"); throws naming the set when it is not one.
int64_t phone_id(const std::string& name);
// 0 when `name` is not in the set.
int64_t find_phone_id(const std::string& name);
// The name of id 1 … 39; "<blank>" for 0; throws for other ids.
const std::string& phone_name(int64_t id);
// Ids of a space-separated phone string (stress digits removed); throws naming the bad phone.
std::vector<int64_t> parse_phones(const std::string& text);
// "AA B CH" for ids {1, 7, 8}.
std::string phones_to_string(const std::vector<int64_t>& ids);

// --- manifest ------------------------------------------------------------------------------------

struct ManifestEntry {
  std::string split;              // train | dev | test
  std::string id;
  std::filesystem::path wav;      // resolved: absolute, or relative to the current directory
  std::vector<int64_t> phones;    // ids 1 … 39, at least one
  int64_t line = 0;               // 1-based line in the manifest
};

struct Manifest {
  std::filesystem::path file;
  std::vector<ManifestEntry> entries;  // in file order
  std::string where(const ManifestEntry& e) const;  // "<file>:<line>"
};

// Reads and checks a manifest (see above). Touches no WAV file.
Manifest read_manifest(const std::filesystem::path& file);
// The same checks on a manifest's text; `file` names it in messages and anchors relative WAV paths.
Manifest parse_manifest(const std::string& text, const std::filesystem::path& file);

// The split names in their canonical order, and a check that throws for anything else.
const std::vector<std::string>& speech_splits();
void check_speech_split(const std::string& split);

// --- prepared split files ------------------------------------------------------------------------

inline constexpr const char* kSpeechFormat = "lintra-speech-split";
inline constexpr int64_t kSpeechFormatVersion = 1;

// The arrays of one split file (see the layout above). Features are raw (not normalised).
struct SpeechSplitData {
  std::string split;
  std::vector<std::string> ids;
  std::vector<int64_t> num_samples;
  std::vector<int64_t> frame_offsets;
  std::vector<float> features;
  std::vector<int64_t> phone_offsets;
  std::vector<int64_t> phones;
  std::vector<double> mean, std;

  int64_t size() const { return int64_t(ids.size()); }
  int64_t num_frames(int64_t i) const { return frame_offsets[size_t(i) + 1] - frame_offsets[size_t(i)]; }
  int64_t total_frames() const { return frame_offsets.empty() ? 0 : frame_offsets.back(); }
};

// Throws unless `d` is consistent (non-empty, offsets, lengths, phone ids, finite features and
// statistics); messages start with `where` and name the utterance at fault.
void check_speech_split_data(const SpeechSplitData& d, const std::string& where);
// Checks, then writes atomically (through "<file>.tmp").
void write_speech_split(const std::filesystem::path& file, const SpeechSplitData& d);
// Reads and checks a split file; errors name the file and what is wrong.
SpeechSplitData read_speech_split(const std::filesystem::path& file);

// Per-dimension mean and standard deviation (floored at 1e-5) over all frames of `features`
// (frames × 40), in double precision and a fixed order.
void feature_stats(const std::vector<float>& features, std::vector<double>& mean, std::vector<double>& std);

// --- preparing -----------------------------------------------------------------------------------

using LogFn = std::function<void(const std::string&)>;

struct PrepareSpeechOptions {
  int threads = 0;  // 0: every OpenMP thread
  // Test hook: called with each utterance's features (frames × 40) before they are checked.
  std::function<void(const std::string& id, std::vector<float>& features)> feature_hook;
};

struct SpeechSplitSummary {
  std::string split;
  std::filesystem::path file;
  int64_t utterances = 0, frames = 0, phones = 0, bytes = 0;
};

// Reads the manifest, computes the features of every utterance (all threads; output in manifest
// order), and writes <out_dir>/{train,dev,test}.h5 with the train statistics in each. Each split needs
// at least one utterance. Throws lintra::Error naming <manifest>:<line> for a bad row, a missing or
// malformed WAV, an utterance shorter than one window, and NaN/Inf features.
std::vector<SpeechSplitSummary> prepare_speech(const std::filesystem::path& manifest,
                                               const std::filesystem::path& out_dir,
                                               const PrepareSpeechOptions& options = {}, const LogFn& log = {});

// --- the data set --------------------------------------------------------------------------------

// One split of a prepared corpus, loaded into memory. Sample i: features = utterance i's frames
// normalised with the train statistics ((x − mean) / std, frames × 40), feature_dim = 40,
// targets = its phone ids (1 … 39). name() is "<dir name>/<split>", e.g. "espeak-speech-small/dev".
class SpeechDataset : public Dataset {
 public:
  SpeechDataset(const std::filesystem::path& dir, const std::string& split);

  int64_t size() const override { return data_.size(); }
  Sample get(int64_t i) const override;
  std::string name() const override { return name_; }
  uint64_t content_digest() const override { return digest_; }  // XXH3-64 of the file's arrays
  int64_t length(int64_t i) const override;                      // frames; O(1)

  const std::string& utterance_id(int64_t i) const;
  int64_t num_samples(int64_t i) const;
  int64_t total_frames() const { return data_.total_frames(); }
  const std::vector<double>& feature_mean() const { return data_.mean; }
  const std::vector<double>& feature_std() const { return data_.std; }
  const std::filesystem::path& file() const { return file_; }

  static constexpr int64_t kFeatureDim = 40;

 private:
  std::filesystem::path file_;
  std::string name_;
  SpeechSplitData data_;  // features normalised in place after the digest is taken
  uint64_t digest_ = 0;
};

}  // namespace lintra::data
