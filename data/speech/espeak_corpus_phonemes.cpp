// espeak_corpus_phonemes.cpp — phoneme cleanup and the espeak → ARPAbet table (see
// espeak_corpus_phonemes.h).
#include "data/speech/espeak_corpus_phonemes.h"

#include <fmt/format.h>

#include <sstream>

#include "core/error.h"
#include "data/files/file_io.h"
#include "data/speech/speech_corpus.h"

#ifndef LINTRA_SOURCE_DIR
#error "LINTRA_SOURCE_DIR must be defined by data/CMakeLists.txt"
#endif

namespace lintra::data {

namespace fs = std::filesystem;

EspeakPhoneMap parse_espeak_phone_map(const std::string& text, const std::string& name) {
  EspeakPhoneMap map;
  std::istringstream in(text);
  std::string line;
  for (int64_t n = 1; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const size_t tab = line.find('\t');
    LINTRA_CHECK(tab != std::string::npos && tab > 0, "{}:{}: expected 'espeak symbol<TAB>ARPAbet phones', got '{}'",
                 name, n, line);
    const std::string symbol = line.substr(0, tab);
    const size_t tab2 = line.find('\t', tab + 1);
    const std::string target = line.substr(tab + 1, tab2 == std::string::npos ? std::string::npos : tab2 - tab - 1);
    std::vector<int64_t> ids;
    try {
      ids = parse_phones(target);
    } catch (const Error& e) {
      throw Error(fmt::format("{}:{}: espeak symbol '{}': {}", name, n, symbol, e.what()));
    }
    LINTRA_CHECK(map.emplace(symbol, std::move(ids)).second, "{}:{}: espeak symbol '{}' is listed twice", name, n,
                 symbol);
  }
  LINTRA_CHECK(!map.empty(), "{}: the espeak phoneme table is empty", name);
  return map;
}

EspeakPhoneMap load_espeak_phone_map(const fs::path& file) {
  LINTRA_CHECK(fs::exists(file), "espeak phoneme table '{}' is missing (it belongs to the lintra source tree)",
               file.string());
  const auto bytes = read_file(file);
  return parse_espeak_phone_map(std::string(bytes.begin(), bytes.end()), file.string());
}

fs::path default_espeak_phone_map_path() {
  return fs::path(LINTRA_SOURCE_DIR) / "data" / "speech" / "espeak_en_us_to_arpabet.tsv";
}

const EspeakPhoneMap& default_espeak_phone_map() {
  static const EspeakPhoneMap map = load_espeak_phone_map(default_espeak_phone_map_path());
  return map;
}

std::vector<std::string> clean_espeak_phonemes(const std::string& phonout) {
  std::vector<std::string> out;
  std::string token;
  auto flush = [&] {
    size_t at = 0;  // strip pause prefixes: "_", "_:", "_!", "_^" (the language-switch mark "_^_"), repeated
    while (at < token.size() && token[at] == '_') {
      ++at;
      if (at < token.size() && (token[at] == ':' || token[at] == '!' || token[at] == '^')) ++at;
    }
    if (at < token.size()) out.push_back(token.substr(at));
    token.clear();
  };
  for (char c : phonout) {
    if (c == '|' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      flush();
    } else if (c == '\'' || c == ',' || c == ';' || c == '%' || c == '=') {
      continue;
    } else {
      token += c;
    }
  }
  flush();
  return out;
}

namespace {

// Splits `token` into table symbols, longest prefix first with backtracking; false when impossible.
bool segment(const std::string& token, size_t at, const EspeakPhoneMap& map, std::vector<const std::string*>& out) {
  if (at == token.size()) return true;
  for (size_t len = token.size() - at; len > 0; --len) {
    auto it = map.find(token.substr(at, len));
    if (it == map.end()) continue;
    out.push_back(&it->first);
    if (segment(token, at + len, map, out)) return true;
    out.pop_back();
  }
  return false;
}

}  // namespace

std::vector<int64_t> map_espeak_phonemes(const std::vector<std::string>& symbols, const EspeakPhoneMap& map,
                                         const std::string& utterance) {
  std::vector<int64_t> ids;
  for (const std::string& s : symbols) {
    auto it = map.find(s);
    if (it != map.end()) {
      ids.insert(ids.end(), it->second.begin(), it->second.end());
      continue;
    }
    std::vector<const std::string*> parts;
    LINTRA_CHECK(segment(s, 0, map, parts),
                 "utterance '{}': espeak phoneme '{}' has no ARPAbet mapping (nor is it a run of mapped symbols); "
                 "add it to {}", utterance, s, default_espeak_phone_map_path().string());
    for (const std::string* part : parts) {
      const auto& target = map.at(*part);
      ids.insert(ids.end(), target.begin(), target.end());
    }
  }
  return ids;
}

}  // namespace lintra::data
