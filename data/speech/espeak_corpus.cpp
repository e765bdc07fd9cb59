// espeak_corpus.cpp — espeak-speech sizes, the seeded utterance plan and the synthesis command (see
// espeak_corpus.h; the build itself is in espeak_corpus_build.cpp).
#include "data/speech/espeak_corpus.h"

#include <fmt/format.h>

#include <array>

#include "core/error.h"
#include "core/rng.h"
#include "data/speech/espeak_corpus_text.h"
#include "data/files/shell.h"

namespace lintra::data {

namespace fs = std::filesystem;

const EspeakSizeSpec& espeak_size_spec(const std::string& size) {
  static const std::array<EspeakSizeSpec, 3> specs = {{
      {"tiny", 40, 8, 8, 0, 10},
      {"small", 600, 80, 80, 14, kSentenceMaxWords},
      {"full", 4000, 400, 300, 14, kSentenceMaxWords},
  }};
  for (const auto& s : specs)
    if (s.name == size) return s;
  LINTRA_FAIL("espeak-speech: unknown size '{}' (tiny, small or full)", size);
}

std::string EspeakUtterance::text() const { return fmt::format("{}", fmt::join(sentences, " ")); }

namespace {

constexpr std::array<const char*, 2> kVoices = {"en-us", "en-us-nyc"};
constexpr std::array<const char*, 15> kVariants = {"m1", "m2", "m3", "m4", "m5", "m6", "m7", "f1",
                                                   "f2", "f3", "f4", "f5", "klatt", "klatt2", "klatt3"};

}  // namespace

std::vector<EspeakUtterance> plan_espeak_corpus(const EspeakCorpusOptions& opt,
                                                const std::vector<std::string>& sentences) {
  const EspeakSizeSpec& spec = espeak_size_spec(opt.size);
  std::vector<const std::string*> pool;
  for (const std::string& s : sentences)
    if (count_words(s) <= spec.max_sentence_words) pool.push_back(&s);

  // (1) Permute, then cut into three disjoint sentence pools proportional to the utterance counts.
  const std::vector<int64_t> perm = Generator(opt.seed, 0).randperm(int64_t(pool.size()));
  const std::array<std::pair<const char*, int64_t>, 3> splits = {{{"train", spec.train}, {"dev", spec.dev},
                                                                  {"test", spec.test}}};
  const int64_t total = spec.train + spec.dev + spec.test;
  std::vector<EspeakUtterance> plan;
  int64_t pool_begin = 0, k = 0;
  for (size_t s = 0; s < splits.size(); ++s) {
    const auto [split, count] = splits[s];
    const int64_t pool_end = s + 1 == splits.size() ? int64_t(perm.size())
                                                    : pool_begin + int64_t(perm.size()) * count / total;
    int64_t next = pool_begin;
    for (int64_t u = 0; u < count; ++u, ++k) {
      EspeakUtterance utt;
      utt.split = split;
      utt.id = fmt::format("{}-{:05d}", split, u);
      // (2) Join consecutive sentences of this split's pool until min_words.
      int64_t words = 0;
      do {
        LINTRA_CHECK(next < pool_end, "espeak-speech {}: the {} sentence pool ({} sentences of at most {} words) "
                     "ran out at utterance {}", opt.size, split, pool_end - pool_begin, spec.max_sentence_words, u);
        const std::string& sentence = *pool[size_t(perm[size_t(next++)])];
        words += count_words(sentence);
        utt.sentences.push_back(sentence);
      } while (words < spec.min_words);
      // (3) Voice and prosody from this utterance's own stream.
      Generator g(opt.seed, uint64_t(1 + k));
      utt.voice = fmt::format("{}+{}", kVoices[size_t(g.randint(0, int64_t(kVoices.size())))],
                              kVariants[size_t(g.randint(0, int64_t(kVariants.size())))]);
      utt.speed = g.randint(130, 191);
      utt.pitch = g.randint(30, 71);
      utt.gap = g.randint(0, 4);
      plan.push_back(std::move(utt));
    }
    pool_begin = pool_end;
  }
  return plan;
}

std::string espeak_command(const EspeakUtterance& u, const fs::path& text_file, const fs::path& phoneme_file,
                           const fs::path& raw_wav, const fs::path& wav) {
  return fmt::format("espeak-ng -v {} -s {} -p {} -g {} -x {} {} -w {} -f {} && sox -R -G {} -r 16000 {}",
                     shell_quote(u.voice), u.speed, u.pitch, u.gap, shell_quote("--sep=|"),
                     shell_quote("--phonout=" + phoneme_file.string()), shell_quote(raw_wav.string()),
                     shell_quote(text_file.string()), shell_quote(raw_wav.string()), shell_quote(wav.string()));
}

fs::path espeak_speech_dir(const fs::path& cache_dir, const std::string& size) {
  espeak_size_spec(size);
  return cache_dir / ("espeak-speech-" + size);
}

}  // namespace lintra::data
