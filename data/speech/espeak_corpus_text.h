// espeak_corpus_text.h — the sentences espeak-speech reads aloud, from offline Debian text packages
// (DATA.md "espeak-speech"): `fortunes`/`fortunes-min` and `wordnet-base`.
//
//   fortune files  /usr/share/games/fortunes/** except *.dat, *.u8 and any folder named "off"
//                  (the offensive set); entries are separated by lines holding only '%';
//                  attribution lines ("-- Mark Twain") are dropped; an entry's lines are joined and
//                  cut into sentences after '.', '!' or '?' (not after a single capital letter or a
//                  common abbreviation such as "Mr." or "e.g.").
//   WordNet        /usr/share/wordnet/data.{noun,verb,adj,adv}: the gloss after " | " of each synset
//                  line, split on ';' outside quotes; quoted parts are example sentences (the text
//                  inside the quotes), the others definitions (first letter capitalised).
//
// A sentence is kept when, after whitespace is collapsed, it is ASCII letters, digits, blanks and
// . , ; : ! ? ' " ( ) - only, every blank-separated token holds a letter or digit (or is a dash),
// and it has 6 … 30 words (tokens with a letter); a final '.' is added when it ends without . ! ?.
// collect_sentences() returns the unique sentences (first occurrence wins) in a fixed order: fortune
// files by path, then the four WordNet files in the order above: about 135,000 sentences in about 1 s.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace lintra::data {

inline constexpr int64_t kSentenceMinWords = 6, kSentenceMaxWords = 30;

// The cleaned sentence, or "" when `text` fails the rules above.
std::string clean_sentence(const std::string& text);
// Number of blank-separated tokens holding a letter.
int64_t count_words(const std::string& sentence);

// Kept sentences of one fortune file's text / one WordNet data file's text, in order (duplicates kept).
std::vector<std::string> fortune_sentences(const std::string& text);
std::vector<std::string> wordnet_sentences(const std::string& text);

struct SentenceSources {
  std::filesystem::path fortunes_dir = "/usr/share/games/fortunes";
  std::filesystem::path wordnet_dir = "/usr/share/wordnet";
};

// All unique kept sentences of the sources, in the fixed order above. Throws naming the folder and
// the Debian package when a source is missing.
std::vector<std::string> collect_sentences(const SentenceSources& sources = {});

}  // namespace lintra::data
