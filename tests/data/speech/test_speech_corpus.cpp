// test_speech_corpus.cpp — the phone set, manifests, prepare_speech and SpeechDataset on tiny synthetic
// WAVs: bad manifests, WAVs, features and split files give errors naming where; the features round-trip,
// normalised with the train statistics in every split; the output does not depend on the thread count.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <numbers>

#include "core/rng.h"
#include "data/speech/fbank.h"
#include "data/files/h5.h"
#include "data/files/shell.h"
#include "data/speech/speech_corpus.h"
#include "data/speech/wav.h"
#include "tests/data/test_util.h"

namespace lintra::data {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::error_of;

// A chirp plus seeded noise: every utterance differs.
std::vector<int16_t> tone(int64_t n, double hz, uint64_t seed) {
  Generator g(seed);
  std::vector<int16_t> s(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const double t = double(i) / 16000.0;
    s[size_t(i)] = int16_t(4000.0 * std::sin(2.0 * std::numbers::pi * hz * (1.0 + t) * t) + 500.0 * (g.next_double() - 0.5));
  }
  return s;
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p);
  out << text;
}

// Six utterances: train a, b, c; dev d, e; test f. WAVs in <tmp>/wav, manifest at <tmp>/manifest.tsv.
struct TinyCorpus {
  TempDir tmp{"lintra-test-speech"};
  fs::path manifest = tmp.path() / "manifest.tsv";
  fs::path out = tmp.path() / "corpus";
  struct Row {
    std::string split, id, phones;
    int64_t samples;
  };
  std::vector<Row> rows = {{"train", "a", "HH AH0 L OW1", 4000},  {"train", "b", "W ER L D", 5600},
                           {"train", "c", "S P IY CH", 3210},     {"dev", "d", "T EH S T", 2400},
                           {"dev", "e", "AA ZH", 1000},           {"test", "f", "F AY N AH L", 4800}};
  TinyCorpus() {
    fs::create_directories(tmp.path() / "wav");
    for (size_t i = 0; i < rows.size(); ++i)
      write_wav(tmp.path() / "wav" / (rows[i].id + ".wav"), tone(rows[i].samples, 200.0 + 150.0 * double(i), i));
    write_manifest(rows);
  }
  void write_manifest(const std::vector<Row>& rs, const std::string& extra = "") {
    std::string text = "# split\tid\twav\tphones\n\n";
    for (const Row& r : rs) text += r.split + "\t" + r.id + "\twav/" + r.id + ".wav\t" + r.phones + "\n";
    write_text(manifest, text + extra);
  }
  std::vector<float> raw_features(const std::string& id) const {
    return default_fbank().compute(read_wav(tmp.path() / "wav" / (id + ".wav")).samples);
  }
};

TEST(DataSpeechCorpus, PhoneSet) {
  const auto& set = phone_set();
  ASSERT_EQ(int64_t(set.size()), kNumPhones);
  EXPECT_TRUE(std::is_sorted(set.begin(), set.end()));
  EXPECT_EQ(phone_id("AA"), 1);
  EXPECT_EQ(phone_id("ZH"), 39);
  EXPECT_EQ(phone_name(1), "AA");
  EXPECT_EQ(phone_name(39), "ZH");
  EXPECT_EQ(phone_name(0), "<blank>");
  for (int64_t id = 1; id <= kNumPhones; ++id) EXPECT_EQ(phone_id(phone_name(id)), id);
  EXPECT_THAT(error_of([] { phone_id("AX"); }), AllOf(HasSubstr("'AX'"), HasSubstr("AA AE AH")));
  EXPECT_THAT(error_of([] { phone_name(40); }), HasSubstr("out of range"));
  EXPECT_EQ(parse_phones("AH0  B\tIY1"), (std::vector<int64_t>{3, 7, 18}));
  EXPECT_EQ(phones_to_string({1, 7, 8}), "AA B CH");
}

TEST(DataSpeechCorpus, ManifestErrorsNameFileAndLine) {
  TinyCorpus c;
  const std::string where = c.manifest.string() + ":";
  auto error_with = [&](const std::string& line) {
    write_text(c.manifest, "# comment\n" + line + "\n");
    return error_of([&] { read_manifest(c.manifest); });
  };
  EXPECT_THAT(error_with("train\tu1\tw.wav\tHH AX L"), AllOf(HasSubstr(where + "2"), HasSubstr("'AX'"), HasSubstr("u1")));
  EXPECT_THAT(error_with("train\tu1\tw.wav\t  "), AllOf(HasSubstr(where + "2"), HasSubstr("empty phone string")));
  EXPECT_THAT(error_with("train u1 w.wav HH"), AllOf(HasSubstr(where + "2"), HasSubstr("spaces instead of TABs")));
  EXPECT_THAT(error_with("valid\tu1\tw.wav\tHH"), AllOf(HasSubstr(where + "2"), HasSubstr("split 'valid'")));
  EXPECT_THAT(error_with("train\tu1\t\tHH"), AllOf(HasSubstr(where + "2"), HasSubstr("empty WAV path")));
  EXPECT_THAT(error_with("train\tu1\tw.wav\tHH\ntest\tu1\tv.wav\tB"),
              AllOf(HasSubstr(where + "3"), HasSubstr("duplicate utterance id 'u1' (first on line 2)")));
  EXPECT_THAT(error_with("# only a comment"), HasSubstr("lists no utterances"));
  // Found by fuzz_speech_manifest: a form feed (or vertical tab) is blank to the phone reader, so a
  // phone field of only "\f" made an utterance with no phones; and an id holding one passed as "no blanks".
  EXPECT_THAT(error_with("train\tu1\tw.wav\t\f"), AllOf(HasSubstr(where + "2"), HasSubstr("empty phone string")));
  EXPECT_THAT(error_with("train\tu\v1\tw.wav\tHH"), HasSubstr("is empty or contains blanks"));
  EXPECT_THAT(error_of([&] { read_manifest(c.tmp.path() / "nope.tsv"); }), HasSubstr("nope.tsv"));

  c.write_manifest(c.rows);
  Manifest m = read_manifest(c.manifest);
  ASSERT_EQ(m.entries.size(), c.rows.size());
  EXPECT_EQ(m.entries[0].line, 3);
  EXPECT_EQ(m.entries[0].wav, c.tmp.path() / "wav" / "a.wav");
  EXPECT_EQ(m.entries[0].phones, parse_phones("HH AH L OW"));
}

TEST(DataSpeechCorpus, BadWavsAndUtterancesNameTheManifestLine) {
  TinyCorpus c;
  const std::string line8 = c.manifest.string() + ":8";  // row f (line 3 + 5)
  fs::remove(c.tmp.path() / "wav" / "f.wav");
  EXPECT_THAT(error_of([&] { prepare_speech(c.manifest, c.out); }),
              AllOf(HasSubstr(line8), HasSubstr("utterance 'f'"), HasSubstr("does not exist")));

  write_wav(c.tmp.path() / "wav" / "f.wav", {});
  EXPECT_THAT(error_of([&] { prepare_speech(c.manifest, c.out); }),
              AllOf(HasSubstr(line8), HasSubstr("no samples")));
  write_wav(c.tmp.path() / "wav" / "f.wav", std::vector<int16_t>(399, 5));
  EXPECT_THAT(error_of([&] { prepare_speech(c.manifest, c.out); }),
              AllOf(HasSubstr(line8), HasSubstr("zero-length utterance")));
  write_wav(c.tmp.path() / "wav" / "f.wav", std::vector<int16_t>(1000, 5), 8000);
  EXPECT_THAT(error_of([&] { prepare_speech(c.manifest, c.out); }),
              AllOf(HasSubstr(line8), HasSubstr("8000 Hz"), HasSubstr("sox -G")));
  EXPECT_FALSE(fs::exists(c.out / "train.h5.tmp"));
}

TEST(DataSpeechCorpus, NanFeaturesNameTheUtterance) {
  TinyCorpus c;
  PrepareSpeechOptions opt;
  opt.feature_hook = [](const std::string& id, std::vector<float>& f) {
    if (id == "b") f[45] = std::numeric_limits<float>::quiet_NaN();
  };
  EXPECT_THAT(error_of([&] { prepare_speech(c.manifest, c.out, opt); }),
              AllOf(HasSubstr(c.manifest.string() + ":4"), HasSubstr("utterance 'b'"), HasSubstr("non-finite"),
                    HasSubstr("frame 1 dimension 5")));
}

TEST(DataSpeechCorpus, EverySplitNeedsAnUtterance) {
  TinyCorpus c;
  std::vector<TinyCorpus::Row> no_dev;
  for (const auto& r : c.rows)
    if (r.split != "dev") no_dev.push_back(r);
  c.write_manifest(no_dev);
  EXPECT_THAT(error_of([&] { prepare_speech(c.manifest, c.out); }), HasSubstr("no 'dev' utterances"));
}

TEST(DataSpeechCorpus, RoundTripNormalisedWithTrainStatistics) {
  TinyCorpus c;
  std::vector<std::string> log;
  auto summary = prepare_speech(c.manifest, c.out, {}, [&](const std::string& m) { log.push_back(m); });
  ASSERT_EQ(summary.size(), 3u);
  EXPECT_EQ(summary[0].utterances, 3);
  EXPECT_EQ(log.size(), 3u);

  // Train statistics computed here, independently, from the WAVs.
  std::vector<float> train_raw;
  for (const char* id : {"a", "b", "c"}) {
    auto f = c.raw_features(id);
    train_raw.insert(train_raw.end(), f.begin(), f.end());
  }
  const int64_t frames = int64_t(train_raw.size()) / kFbankDim;
  std::vector<double> mean(40, 0.0), var(40, 0.0);
  for (int64_t t = 0; t < frames; ++t)
    for (int j = 0; j < 40; ++j) mean[size_t(j)] += train_raw[size_t(t * 40 + j)] / double(frames);
  for (int64_t t = 0; t < frames; ++t)
    for (int j = 0; j < 40; ++j) var[size_t(j)] += std::pow(train_raw[size_t(t * 40 + j)] - mean[size_t(j)], 2) / double(frames);

  for (const std::string split : {"train", "dev", "test"}) {
    SpeechDataset ds(c.out, split);
    EXPECT_EQ(ds.name(), "corpus/" + split);
    for (int j = 0; j < 40; ++j) {
      EXPECT_NEAR(ds.feature_mean()[size_t(j)], mean[size_t(j)], 1e-6 * (1 + std::abs(mean[size_t(j)]))) << split;
      EXPECT_NEAR(ds.feature_std()[size_t(j)], std::sqrt(var[size_t(j)]), 1e-6 * (1 + std::sqrt(var[size_t(j)])));
    }
    int64_t i = 0;
    for (const auto& r : c.rows) {
      if (r.split != split) continue;
      EXPECT_EQ(ds.utterance_id(i), r.id);
      EXPECT_EQ(ds.num_samples(i), r.samples);
      EXPECT_EQ(ds.length(i), fbank_num_frames(r.samples));
      Sample s = ds.get(i);
      s.validate();
      EXPECT_EQ(s.feature_dim, 40);
      EXPECT_EQ(s.length(), fbank_num_frames(r.samples));
      EXPECT_EQ(s.targets, parse_phones(r.phones));
      const auto raw = c.raw_features(r.id);
      ASSERT_EQ(raw.size(), s.features.size());
      for (size_t k = 0; k < raw.size(); ++k) {
        const double expected = (raw[k] - mean[k % 40]) / std::sqrt(var[k % 40]);
        ASSERT_NEAR(s.features[k], expected, 1e-4 * (1 + std::abs(expected))) << r.id << " value " << k;
      }
      ++i;
    }
    EXPECT_EQ(ds.size(), i);
    EXPECT_THAT(error_of([&] { ds.get(ds.size()); }), HasSubstr("out of range"));
  }
  EXPECT_EQ(SpeechDataset(c.out, "dev").content_digest(), SpeechDataset(c.out, "dev").content_digest());
  EXPECT_NE(SpeechDataset(c.out, "dev").content_digest(), SpeechDataset(c.out, "test").content_digest());
  EXPECT_THAT(error_of([&] { SpeechDataset(c.out, "valid"); }), HasSubstr("train, dev or test"));
}

TEST(DataSpeechCorpus, OutputDoesNotDependOnThreadCount) {
  TinyCorpus c;
  PrepareSpeechOptions one, two;
  one.threads = 1;
  two.threads = 3;
  prepare_speech(c.manifest, c.out / "one", one);
  prepare_speech(c.manifest, c.out / "two", two);
  for (const std::string split : {"train", "dev", "test"}) {
    SpeechSplitData a = read_speech_split(c.out / "one" / (split + ".h5"));
    SpeechSplitData b = read_speech_split(c.out / "two" / (split + ".h5"));
    EXPECT_EQ(a.features, b.features);
    EXPECT_EQ(a.ids, b.ids);
    EXPECT_EQ(a.phones, b.phones);
    EXPECT_EQ(a.mean, b.mean);
    EXPECT_EQ(a.std, b.std);
  }
}

// Writes `d` in the split layout without any check, so that tests can make bad files.
void write_unchecked(const fs::path& file, const SpeechSplitData& d) {
  h5::File f = h5::File::create(file.string());
  f.set_attr("format", kSpeechFormat);
  f.set_attr("version", kSpeechFormatVersion);
  f.set_attr("split", d.split);
  f.set_attr("feature_dim", int64_t(40));
  f.set_attr("sample_rate", int64_t(16000));
  std::string phones;
  for (const auto& p : phone_set()) phones += (phones.empty() ? "" : " ") + p;
  f.set_attr("phone_set", phones);
  f.create_dataset("features", DType::f32, {int64_t(d.features.size()) / 40, 40}, d.features.data());
  f.create_dataset("frame_offsets", DType::i64, {int64_t(d.frame_offsets.size())}, d.frame_offsets.data());
  f.create_dataset("num_samples", DType::i64, {int64_t(d.num_samples.size())}, d.num_samples.data());
  f.create_dataset("phones", DType::i64, {int64_t(d.phones.size())}, d.phones.data());
  f.create_dataset("phone_offsets", DType::i64, {int64_t(d.phone_offsets.size())}, d.phone_offsets.data());
  std::string ids;
  for (const auto& id : d.ids) ids += (ids.empty() ? "" : "\n") + id;
  f.write_string("utterance_ids", ids);
  f.create_dataset("feature_mean", DType::f64, {int64_t(d.mean.size())}, d.mean.data());
  f.create_dataset("feature_std", DType::f64, {int64_t(d.std.size())}, d.std.data());
  f.close();
}

TEST(DataSpeechCorpus, CorruptSplitFilesGiveClearErrors) {
  TinyCorpus c;
  prepare_speech(c.manifest, c.out);
  const SpeechSplitData good = read_speech_split(c.out / "dev.h5");
  const fs::path bad_dir = c.tmp.path() / "bad";
  fs::create_directories(bad_dir);
  const fs::path file = bad_dir / "dev.h5";
  auto error_for = [&](const SpeechSplitData& d) {
    write_unchecked(file, d);
    std::string msg = error_of([&] { SpeechDataset(bad_dir, "dev"); });
    EXPECT_THAT(msg, HasSubstr(file.string()));
    return msg;
  };

  SpeechSplitData nan = good;
  nan.features[40 * 3 + 7] = std::numeric_limits<float>::infinity();
  EXPECT_THAT(error_for(nan), AllOf(HasSubstr("utterance 'd'"), HasSubstr("non-finite feature value inf"),
                                    HasSubstr("frame 3 dimension 7")));
  SpeechSplitData phone = good;
  phone.phones[2] = 40;
  EXPECT_THAT(error_for(phone), AllOf(HasSubstr("utterance 'd'"), HasSubstr("phone id 40")));
  SpeechSplitData offsets = good;
  offsets.frame_offsets[1] += 1;
  EXPECT_THAT(error_for(offsets), HasSubstr("utterance 'd' has"));
  SpeechSplitData empty;
  empty.split = "dev";
  empty.frame_offsets = {0};
  empty.phone_offsets = {0};
  empty.mean = good.mean;
  empty.std = good.std;
  EXPECT_THAT(error_for(empty), HasSubstr("holds no utterances"));
  SpeechSplitData zero_std = good;
  zero_std.std[4] = 0.0;
  EXPECT_THAT(error_for(zero_std), HasSubstr("feature_std[4] is 0"));

  // Truncated, not HDF5, another split's file, missing.
  std::vector<char> bytes(size_t(fs::file_size(c.out / "dev.h5")));
  std::ifstream(c.out / "dev.h5", std::ios::binary).read(bytes.data(), std::streamsize(bytes.size()));
  std::ofstream(file, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size() / 2));
  EXPECT_THAT(error_of([&] { SpeechDataset(bad_dir, "dev"); }), AllOf(HasSubstr(file.string()), HasSubstr("truncated")));
  write_text(file, "not an HDF5 file at all");
  EXPECT_THAT(error_of([&] { SpeechDataset(bad_dir, "dev"); }), HasSubstr("not an HDF5 file"));
  fs::copy_file(c.out / "test.h5", file, fs::copy_options::overwrite_existing);
  EXPECT_THAT(error_of([&] { SpeechDataset(bad_dir, "dev"); }), HasSubstr("holds the 'test' split, expected 'dev'"));
  EXPECT_THAT(error_of([&] { SpeechDataset(bad_dir, "train"); }), AllOf(HasSubstr("missing file"), HasSubstr("prepare")));
  {
    h5::File f = h5::File::create(file.string());
    f.set_attr("format", "something-else");
  }
  EXPECT_THAT(error_of([&] { SpeechDataset(bad_dir, "dev"); }), HasSubstr("not a lintra speech split file"));
}

}  // namespace
}  // namespace lintra::data
