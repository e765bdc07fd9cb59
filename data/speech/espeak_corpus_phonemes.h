// espeak_corpus_phonemes.h — espeak-ng's phoneme output (-x --sep='|') → the 39 ARPAbet phone ids.
//
// Cleanup (DATA.md, one refinement): split on '|', blanks and newlines; delete the characters
// ' , ; % = (stress and other marks); strip pause prefixes "_", "_:", "_!", "_^_" (repeated) from the front
// of a token and drop what is left when it is empty. DATA.md says "drop tokens starting with _", but
// espeak-ng 1.51 glues a clause pause to the next phoneme without a separator ("_:|_:D|@2" for ", the"),
// so dropping the whole token would lose the phoneme; about 3 % of pause tokens carry one.
//
// Mapping: data/speech/espeak_en_us_to_arpabet.tsv (espeak symbol <TAB> ARPAbet phones, space-separated, or
// empty to delete <TAB> note; '#' comments). The table is read at run time from the source tree
// (LINTRA_SOURCE_DIR/data/speech/espeak_en_us_to_arpabet.tsv, fixed at build time) rather than embedded, so
// that the one file DATA.md documents is the one the code uses.
//
// Glued symbols: espeak-ng 1.51 sometimes omits the separator between two phonemes (seen with
// en-us-nyc, e.g. "3f", "nb", "r-I", "s0" in about 1 of 1,000 sentences). A token missing from the
// table is therefore split into table symbols that spell it (longest first, with backtracking):
// "r-I" -> "r-" "I" -> R IH. Only a token that cannot be split is an error, naming the token and the
// utterance.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace lintra::data {

using EspeakPhoneMap = std::map<std::string, std::vector<int64_t>>;  // espeak symbol -> phone ids (maybe none)

// Parses the table's text; errors name `name`:line (unknown ARPAbet phone, duplicate symbol, no TAB).
EspeakPhoneMap parse_espeak_phone_map(const std::string& text, const std::string& name);
EspeakPhoneMap load_espeak_phone_map(const std::filesystem::path& file);
// The repository's table (loaded once, thread-safe).
const EspeakPhoneMap& default_espeak_phone_map();
std::filesystem::path default_espeak_phone_map_path();

// The cleaned espeak symbols of a --phonout text, in order.
std::vector<std::string> clean_espeak_phonemes(const std::string& phonout);

// Phone ids of cleaned symbols (glued symbols split as above); throws naming the first symbol that
// cannot be mapped and `utterance`.
std::vector<int64_t> map_espeak_phonemes(const std::vector<std::string>& symbols, const EspeakPhoneMap& map,
                                         const std::string& utterance);

}  // namespace lintra::data
