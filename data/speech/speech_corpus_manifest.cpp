// speech_corpus_manifest.cpp — reading and checking the utterance manifest (see speech_corpus.h).
#include <fmt/format.h>

#include <fstream>
#include <map>

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

bool blank(const std::string& s) { return s.find_first_not_of(" \t\r") == std::string::npos; }

}  // namespace

Manifest read_manifest(const fs::path& file) {
  std::ifstream in(file);
  LINTRA_CHECK(in.good(), "cannot open the speech manifest '{}'", file.string());
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
    LINTRA_CHECK(!e.id.empty() && e.id.find_first_of(" \t\r\n") == std::string::npos,
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
  LINTRA_CHECK(!in.bad(), "read error in the speech manifest '{}'", file.string());
  LINTRA_CHECK(!m.entries.empty(), "speech manifest '{}' lists no utterances", file.string());
  return m;
}

}  // namespace lintra::data
