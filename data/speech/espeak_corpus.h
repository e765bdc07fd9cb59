// espeak_corpus.h — espeak-speech, the WSJ stand-in (DATA.md "espeak-speech"): synthetic read speech
// from espeak-ng with the phonemes it spoke, prepared by the same prepare_speech a WSJ user runs.
//
// prepare_espeak_speech(cache, {size, seed}) makes <cache>/espeak-speech-<size>/:
//   manifest.tsv     the speech manifest (speech_corpus.h) — split, id, wav/<id>.wav, ARPAbet phones
//   utterances.tsv   id, split, voice, speed, pitch, gap and the text spoken, one row per utterance
//   train.h5 dev.h5 test.h5   the split files written by prepare_speech (features + phones + train stats)
//   wav/<id>.wav     16 kHz WAVs, only with keep_wavs: by default they are deleted once the features
//                    exist (small: ~200 MB, full: ~1.2 GB), so manifest.tsv then names absent files; a
//                    WAV is remade exactly by rerunning its row of utterances.tsv through the command below
//   stamp.txt        size, seed, and the size and XXH3-64 of every file above: written last
//
// Steps. (1) Sentences from fortunes and WordNet (espeak_corpus_text.h), permuted with
// Generator(seed, stream 0) and cut into three disjoint pools (train, dev, test, proportional to the
// utterance counts) BEFORE joining, so no sentence is spoken in two splits. (2) Each utterance joins
// consecutive sentences of its split's pool until it has min_words words. (3) Utterance k (counting
// train, dev, test in order) draws voice en-us | en-us-nyc, variant m1 … m7 | f1 … f5 | klatt | klatt2 |
// klatt3, speed 130 … 190, pitch 30 … 70 and word gap 0 … 3 from Generator(seed, stream 1 + k): the
// corpus is a function of (size, seed) whatever the thread count. (4) On every OpenMP thread, one
// shell call per utterance:
//     espeak-ng -v VOICE+VARIANT -s SPEED -p PITCH -g GAP -x --sep='|' --phonout=u.pho -w u.wav -f u.txt
//     && sox -R -G u.wav -r 16000 wav/<id>.wav
// and the phonemes of u.pho are cleaned and mapped (espeak_corpus_phonemes.h). (5) prepare_speech.
// sox's -R (beyond DATA.md's `sox -G`): sox dithers when it resamples to 16 bits, with a random seed
// unless -R ("repeatable") fixes it; without it two builds with the same seed differ in the last bit
// of every sample, and so in every feature.
//
// Sizes (utterances train/dev/test; words per utterance):
//   tiny    40 / 8 / 8        one sentence of 6 … 10 words (about 3 s): for tests, seconds to build
//   small   600 / 80 / 80     sentences joined to >= 14 words (mean 8.2 s, 818 frames, like WSJ): 44 s on 2
//                             busy cores, 100 MB (train.h5 79 MB)
//   full    4000 / 400 / 300  as small: DATA.md's recommendation; about 5 minutes on 2 cores and 650 MB
//                             (estimated from small)
//
// Idempotent: with stamp.txt present the call re-hashes the files, checks them against it and returns
// (a different seed, or a changed file, is an error telling to delete the folder). The build happens
// in <dir>.partial (removed first if a killed build left it) and is renamed into place at the end.
// Errors: espeak-ng or sox missing (run tools/install-deps.sh), an unknown size, an espeak phoneme
// with no ARPAbet mapping (naming it and the utterance), a failed synthesis (the command and output).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "data/speech/speech_corpus.h"

namespace lintra::data {

struct EspeakCorpusOptions {
  std::string size = "small";  // tiny | small | full
  uint64_t seed = 1;
  bool keep_wavs = false;      // keep wav/*.wav after the features are made
};

struct EspeakSizeSpec {
  std::string name;
  int64_t train = 0, dev = 0, test = 0;
  int64_t min_words = 0;           // join sentences until an utterance has this many words
  int64_t max_sentence_words = 0;  // only sentences of at most this many words are used
};

// The spec of tiny | small | full; throws naming the valid sizes otherwise.
const EspeakSizeSpec& espeak_size_spec(const std::string& size);

struct EspeakUtterance {
  std::string split, id;
  std::string voice;  // e.g. "en-us+f3"
  int64_t speed = 0, pitch = 0, gap = 0;
  std::vector<std::string> sentences;
  std::string text() const;  // the sentences joined by blanks
};

// The corpus's utterances (train, dev, test in order) from `sentences` (as collect_sentences returns
// them): steps (1)–(3) above. Pure and deterministic.
std::vector<EspeakUtterance> plan_espeak_corpus(const EspeakCorpusOptions& opt,
                                                const std::vector<std::string>& sentences);

// The shell command of step (4) for `u`, reading text_file and writing phonemes, the 22,050 Hz WAV
// and the 16 kHz WAV.
std::string espeak_command(const EspeakUtterance& u, const std::filesystem::path& text_file,
                           const std::filesystem::path& phoneme_file, const std::filesystem::path& raw_wav,
                           const std::filesystem::path& wav);

// <cache_dir>/espeak-speech-<size>
std::filesystem::path espeak_speech_dir(const std::filesystem::path& cache_dir, const std::string& size);

// True when the corpus folder has its stamp and every stamped file with its stamped size (cheap: no hashing).
bool espeak_speech_present(const std::filesystem::path& cache_dir, const std::string& size);

// Builds (or verifies) the corpus and returns its folder (see above).
std::filesystem::path prepare_espeak_speech(const std::filesystem::path& cache_dir, const EspeakCorpusOptions& opt,
                                            const LogFn& log = {});

}  // namespace lintra::data
