// test_espeak_corpus.cpp — espeak-speech: phoneme cleanup and mapping on fixed strings, sentence
// extraction, the seeded plan (disjoint split texts), and the tiny corpus built end to end (skipped
// when espeak-ng or sox is absent): deterministic, frames matching the WAV lengths, idempotent, with
// its build time printed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <set>

#include "data/speech/espeak_corpus.h"
#include "data/speech/espeak_corpus_phonemes.h"
#include "data/speech/espeak_corpus_text.h"
#include "data/speech/fbank.h"
#include "data/files/shell.h"
#include "data/speech/wav.h"
#include "tests/data/test_util.h"

namespace lintra::data {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::error_of;

TEST(DataEspeakCorpus, PhonemeCleanup) {
  // Real espeak-ng 1.51 output: stress marks, pauses, a pause glued to the next phoneme ("_:D").
  const std::string pho = "D|@2|_ k|w|'I|k|_ b|r|'aU|n|_:|_:D|@2 l|,i@3|n|; f|'aI3|=|%?|_!|_^_\n_ h|'e@|_\n";
  EXPECT_THAT(clean_espeak_phonemes(pho), ElementsAre("D", "@2", "k", "w", "I", "k", "b", "r", "aU", "n", "D", "@2",
                                                      "l", "i@3", "n", "f", "aI3", "?", "h", "e@"));
  const auto& map = default_espeak_phone_map();
  EXPECT_EQ(phones_to_string(map_espeak_phonemes(clean_espeak_phonemes(pho), map, "u1")),
            "DH AH K W IH K B R AW N DH AH L IY ER N F AY ER HH EH R");  // '?' (glottal stop) is deleted
  // Glued symbols seen from en-us-nyc ("human" -> j|'u:|m|3f|r|...) split into table symbols.
  EXPECT_EQ(phones_to_string(map_espeak_phonemes({"3f", "nb", "r-I", "s0", "aI3"}, map, "u2")),
            "ER F N B R IH S AA AY ER");
  EXPECT_THAT(error_of([&] { map_espeak_phonemes({"D", "Q9"}, map, "train-00007"); }),
              AllOf(HasSubstr("'Q9'"), HasSubstr("train-00007"), HasSubstr("espeak_en_us_to_arpabet.tsv")));
}

TEST(DataEspeakCorpus, PhoneTable) {
  const auto& map = default_espeak_phone_map();
  EXPECT_GE(map.size(), 60u);
  EXPECT_EQ(map.at("@L"), parse_phones("AH L"));
  EXPECT_TRUE(map.at("?").empty());
  EXPECT_EQ(map.at("tS"), parse_phones("CH"));
  EXPECT_THAT(error_of([] { parse_espeak_phone_map("# c\na\tAE\nb\tAX\n", "t.tsv"); }),
              AllOf(HasSubstr("t.tsv:3"), HasSubstr("'b'"), HasSubstr("'AX'")));
  EXPECT_THAT(error_of([] { parse_espeak_phone_map("a\tAE\na\tAH\n", "t.tsv"); }),
              AllOf(HasSubstr("t.tsv:2"), HasSubstr("listed twice")));
  EXPECT_THAT(error_of([] { parse_espeak_phone_map("a AE\n", "t.tsv"); }), HasSubstr("t.tsv:1"));
}

TEST(DataEspeakCorpus, SentenceRules) {
  EXPECT_EQ(clean_sentence("  the cat sat\ton the\nmat today  "), "the cat sat on the mat today.");
  EXPECT_EQ(clean_sentence("the cat sat on the mat;"), "the cat sat on the mat.");
  EXPECT_EQ(clean_sentence("\"Is the cat on the mat?\""), "\"Is the cat on the mat?\"");
  EXPECT_EQ(clean_sentence("The pelt of a bear (sometimes used as a rug)"), "The pelt of a bear (sometimes used as a rug).");
  EXPECT_EQ(clean_sentence("too short to use."), "");
  EXPECT_EQ(clean_sentence("the caf\xc3\xa9 sat on the mat today."), "");  // not ASCII
  EXPECT_EQ(clean_sentence("the cat sat on the mat <today>."), "");     // markup
  EXPECT_EQ(clean_sentence("the cat -- sat on the mat today."), "the cat -- sat on the mat today.");
  std::string long_one;
  for (int i = 0; i < 31; ++i) long_one += "word ";
  EXPECT_EQ(clean_sentence(long_one), "");
  EXPECT_EQ(count_words("It is 3 o'clock -- (or so)."), 5);

  const std::string fortune =
      "A clash of doctrine is not a disaster -- it is an opportunity.\n%\n"
      "Mr. Smith went to Washington on a train.  He did not like it at all!\n"
      "\t\t-- R. A. Heinlein\n%\n"
      "short one.\n%\n";
  EXPECT_THAT(fortune_sentences(fortune),
              ElementsAre("A clash of doctrine is not a disaster -- it is an opportunity.",
                          "Mr. Smith went to Washington on a train.", "He did not like it at all!"));
  const std::string wordnet =
      "  1 This software and database is being provided to you, the LICENSEE, by Princeton University\n"
      "00002684 03 n 02 object 0 physical_object 0 039 @ 00001930 n 0000 | a tangible and visible entity; an entity "
      "that can cast a shadow; \"it was full of rackets, balls and other objects\"  \n";
  EXPECT_THAT(wordnet_sentences(wordnet),
              ElementsAre("An entity that can cast a shadow.", "It was full of rackets, balls and other objects."));
}

const std::vector<std::string>& all_sentences() {
  static const std::vector<std::string> s = collect_sentences();
  return s;
}

bool have_text_sources() {
  return fs::is_directory(SentenceSources{}.fortunes_dir) && fs::exists(SentenceSources{}.wordnet_dir / "data.noun");
}

TEST(DataEspeakCorpus, SentencesAndPlan) {
  if (!have_text_sources()) GTEST_SKIP() << "fortunes / wordnet-base not installed";
  const auto& s = all_sentences();
  std::cout << "[ info ] " << s.size() << " unique sentences\n";
  EXPECT_GT(s.size(), 50000u);
  EXPECT_EQ(std::set<std::string>(s.begin(), s.end()).size(), s.size());

  for (const std::string size : {"tiny", "small", "full"}) {
    const EspeakSizeSpec& spec = espeak_size_spec(size);
    const auto plan = plan_espeak_corpus({size, 5}, s);
    ASSERT_EQ(int64_t(plan.size()), spec.train + spec.dev + spec.test);
    std::map<std::string, std::set<std::string>> by_split;
    for (const auto& u : plan) {
      int64_t words = 0;
      for (const auto& sentence : u.sentences) {
        EXPECT_LE(count_words(sentence), spec.max_sentence_words);
        words += count_words(sentence);
        by_split[u.split].insert(sentence);
      }
      EXPECT_GE(words, spec.min_words);
      if (size == "tiny") {
        EXPECT_EQ(u.sentences.size(), 1u);
      }
      EXPECT_THAT(u.voice, ::testing::MatchesRegex("en-us(-nyc)?\\+(m[1-7]|f[1-5]|klatt[23]?)"));
      EXPECT_TRUE(u.speed >= 130 && u.speed <= 190 && u.pitch >= 30 && u.pitch <= 70 && u.gap >= 0 && u.gap <= 3);
    }
    for (const auto& [a, sa] : by_split) {
      for (const auto& [b, sb] : by_split) {
        if (a >= b) continue;
        for (const auto& sentence : sa) {
          EXPECT_EQ(sb.count(sentence), 0u) << size << ": '" << sentence << "' in " << a << " and " << b;
        }
      }
    }
  }
  const auto p1 = plan_espeak_corpus({"small", 5}, s), p2 = plan_espeak_corpus({"small", 5}, s);
  const auto p3 = plan_espeak_corpus({"small", 6}, s);
  for (size_t i = 0; i < p1.size(); ++i) {
    EXPECT_EQ(p1[i].text(), p2[i].text());
    EXPECT_EQ(p1[i].voice, p2[i].voice);
    EXPECT_EQ(p1[i].speed, p2[i].speed);
  }
  EXPECT_NE(p1[0].text(), p3[0].text());
  EXPECT_THAT(error_of([&] { plan_espeak_corpus({"huge", 1}, s); }), HasSubstr("tiny, small or full"));
}

std::map<std::string, std::string> read_column(const fs::path& tsv, size_t key, size_t value) {
  std::map<std::string, std::string> out;
  std::ifstream in(tsv);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    size_t start = 0, tab;
    while ((tab = line.find('\t', start)) != std::string::npos) {
      f.push_back(line.substr(start, tab - start));
      start = tab + 1;
    }
    f.push_back(line.substr(start));
    out[f.at(key)] = f.at(value);
  }
  return out;
}

TEST(DataEspeakCorpus, TinyCorpusEndToEnd) {
  if (!have_program("espeak-ng") || !have_program("sox")) GTEST_SKIP() << "espeak-ng or sox not installed";
  if (!have_text_sources()) GTEST_SKIP() << "fortunes / wordnet-base not installed";
  TempDir tmp("lintra-test-espeak");
  const fs::path cache_a = tmp.path() / "a", cache_b = tmp.path() / "b";

  EspeakCorpusOptions opt{"tiny", 3};
  opt.keep_wavs = true;
  const auto start = std::chrono::steady_clock::now();
  const fs::path dir = prepare_espeak_speech(cache_a, opt);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "[ info ] tiny espeak-speech corpus built in " << secs << " s\n";
  EXPECT_EQ(dir, cache_a / "espeak-speech-tiny");
  EXPECT_TRUE(espeak_speech_present(cache_a, "tiny"));
  EXPECT_FALSE(espeak_speech_present(cache_a, "small"));
  EXPECT_FALSE(fs::exists(cache_a / "espeak-speech-tiny.partial"));

  // Counts, frames against each WAV's length, phones present.
  const std::map<std::string, int64_t> counts = {{"train", 40}, {"dev", 8}, {"test", 8}};
  int64_t total_frames = 0, total_utts = 0;
  for (const auto& [split, count] : counts) {
    SpeechDataset ds(dir, split);
    ASSERT_EQ(ds.size(), count) << split;
    for (int64_t i = 0; i < ds.size(); ++i) {
      const Wav wav = read_wav(dir / "wav" / (ds.utterance_id(i) + ".wav"));
      EXPECT_EQ(ds.num_samples(i), int64_t(wav.samples.size()));
      EXPECT_EQ(ds.length(i), fbank_num_frames(int64_t(wav.samples.size()))) << ds.utterance_id(i);
      EXPECT_GE(ds.get(i).targets.size(), 5u);
      total_frames += ds.length(i);
      ++total_utts;
    }
  }
  std::cout << "[ info ] tiny: " << total_utts << " utterances, " << total_frames / total_utts
            << " frames per utterance on average\n";

  // Split texts are disjoint.
  const auto split_of = read_column(dir / "utterances.tsv", 0, 1), text_of = read_column(dir / "utterances.tsv", 0, 6);
  std::map<std::string, std::set<std::string>> texts;
  for (const auto& [id, split] : split_of) texts[split].insert(text_of.at(id));
  ASSERT_EQ(texts.size(), 3u);
  for (const auto& t : texts["train"]) {
    EXPECT_EQ(texts["dev"].count(t), 0u);
    EXPECT_EQ(texts["test"].count(t), 0u);
  }
  for (const auto& t : texts["dev"]) EXPECT_EQ(texts["test"].count(t), 0u);

  // Idempotent: a second call verifies and returns without rebuilding.
  const auto mtime = fs::last_write_time(dir / "train.h5");
  std::vector<std::string> log;
  EXPECT_EQ(prepare_espeak_speech(cache_a, opt, [&](const std::string& m) { log.push_back(m); }), dir);
  EXPECT_EQ(fs::last_write_time(dir / "train.h5"), mtime);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_THAT(log[0], HasSubstr("present and verified"));
  EXPECT_THAT(error_of([&] { prepare_espeak_speech(cache_a, {"tiny", 4}); }), HasSubstr("built with seed 3, not 4"));

  // Deterministic: the same seed (without keeping WAVs) gives identical arrays and manifest.
  const fs::path dir_b = prepare_espeak_speech(cache_b, {"tiny", 3});
  EXPECT_FALSE(fs::exists(dir_b / "wav"));
  EXPECT_EQ(read_column(dir / "manifest.tsv", 1, 3), read_column(dir_b / "manifest.tsv", 1, 3));
  for (const auto& [split, count] : counts) {
    const SpeechSplitData a = read_speech_split(dir / (split + ".h5")), b = read_speech_split(dir_b / (split + ".h5"));
    EXPECT_EQ(a.ids, b.ids);
    EXPECT_EQ(a.num_samples, b.num_samples);
    EXPECT_EQ(a.frame_offsets, b.frame_offsets);
    EXPECT_EQ(a.features, b.features) << split;
    EXPECT_EQ(a.phones, b.phones);
    EXPECT_EQ(a.mean, b.mean);
    EXPECT_EQ(SpeechDataset(dir, split).content_digest(), SpeechDataset(dir_b, split).content_digest());
  }

  // A damaged file is caught by the verification.
  {
    std::fstream f(dir_b / "test.h5", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-8, std::ios::end);
    f.write("XXXXXXXX", 8);
  }
  EXPECT_THAT(error_of([&] { prepare_espeak_speech(cache_b, {"tiny", 3}); }),
              AllOf(HasSubstr("test.h5"), HasSubstr("differs from the stamp")));
}

}  // namespace
}  // namespace lintra::data
