// speech_corpus_manifest.cpp — reading and checking the utterance manifest (see speech_corpus.h).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.h"
#include "data/speech/speech_corpus.h"

namespace lintra::data {

namespace fs = std::filesystem;

std::string Manifest::where(const ManifestEntry& e) const { return fmt::format("{}:{}", file.string(), e.line); }

namespace {

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (;;) {
    size_t tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) return fields;
    start = tab + 1;
  }
}

bool space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
// Blank as the phone reader (operator>>) sees it: form feeds and vertical tabs too.
bool blank(const std::string& s) { return std::all_of(s.begin(), s.end(), space); }
bool has_space(const std::string& s) { return std::any_of(s.begin(), s.end(), space); }

}  // namespace

Manifest read_manifest(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  LINTRA_CHECK(in.good(), "cannot open the speech manifest '{}': {}", file.string(), std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  LINTRA_CHECK(!in.bad(), "read error in the speech manifest '{}': {}", file.string(), std::strerror(errno));
  return parse_manifest(text.str(), file);
}

Manifest parse_manifest(const std::string& text, const fs::path& file) {
  std::istringstream in(text);
  Manifest m;
  m.file = file;
  const fs::path base = file.parent_path();
  std::map<std::string, int64_t> seen;  // id -> line
  std::string line;
  for (int64_t n = 1; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    const std::string where = fmt::format("{}:{}", file.string(), n);
    std::vector<std::string> f = split_tabs(line);
    LINTRA_CHECK(f.size() == 4,
                 "{}: expected 4 TAB-separated fields (split, id, wav path, phones), found {}{}", where, f.size(),
                 f.size() == 1 ? " (are the fields separated by spaces instead of TABs?)" : "");
    ManifestEntry e;
    e.line = n;
    e.split = f[0];
    e.id = f[1];
    LINTRA_CHECK(e.split == "train" || e.split == "dev" || e.split == "test",
                 "{}: split '{}' is not one of train, dev, test", where, e.split);
    LINTRA_CHECK(!e.id.empty() && !has_space(e.id),
                 "{}: utterance id '{}' is empty or contains blanks", where, e.id);
    auto [it, inserted] = seen.emplace(e.id, n);
    LINTRA_CHECK(inserted, "{}: duplicate utterance id '{}' (first on line {})", where, e.id, it->second);
    LINTRA_CHECK(!blank(f[2]), "{}: utterance '{}': empty WAV path", where, e.id);
    fs::path wav(f[2]);
    e.wav = wav.is_absolute() ? wav : base / wav;
    LINTRA_CHECK(!blank(f[3]), "{}: utterance '{}': empty phone string", where, e.id);
    try {
      e.phones = parse_phones(f[3]);
    } catch (const Error& err) {
      throw Error(fmt::format("{}: utterance '{}': {}", where, e.id, err.what()));
    }
    m.entries.push_back(std::move(e));
  }
  LINTRA_CHECK(!m.entries.empty(), "speech manifest '{}' lists no utterances", file.string());
  return m;
}

}  // namespace lintra::data
