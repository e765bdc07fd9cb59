// espeak_corpus_text.cpp — sentence extraction from fortune files and WordNet glosses (see
// espeak_corpus_text.h).
#include "data/speech/espeak_corpus_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_set>

#include "core/error.h"
#include "data/files/file_io.h"

namespace lintra::data {

namespace fs = std::filesystem;

namespace {

bool is_alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool allowed_char(char c) {
  return is_alnum(c) || c == ' ' || std::string_view(".,;:!?'\"()-").find(c) != std::string_view::npos;
}

std::vector<std::string> tokens_of(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string collapse_blanks(const std::string& text) {
  std::string s;
  for (char c : text) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
    if (c == ' ' && (s.empty() || s.back() == ' ')) continue;
    s += c;
  }
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// A '.' after `token` does not end a sentence: single letters (initials) and common abbreviations.
bool is_abbreviation(std::string token) {
  while (!token.empty() && (token.front() == '(' || token.front() == '"' || token.front() == '\'')) token.erase(0, 1);
  if (token.size() == 1 && is_alpha(token[0])) return true;
  static const std::set<std::string> abbreviations = {
      "Mr", "Mrs", "Ms", "Dr", "St", "Jr", "Sr", "Prof", "vs", "e.g", "i.e", "Mt", "Lt", "Col", "Gen", "Gov",
      "Rev", "Inc", "Ltd", "Co", "No", "Vol", "Fig", "cf", "approx", "Sgt", "Capt", "Hon", "Ave", "Dept", "U.S"};
  return abbreviations.count(token) > 0;
}

// Cuts a paragraph into sentences after . ! ? (with any closing quotes/brackets) followed by a blank.
std::vector<std::string> split_sentences(const std::string& para) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i < para.size(); ++i) {
    const char c = para[i];
    if (c != '.' && c != '!' && c != '?') continue;
    size_t j = i + 1;
    while (j < para.size() && (para[j] == '"' || para[j] == '\'' || para[j] == ')')) ++j;
    if (j < para.size() && para[j] != ' ') continue;  // "3.14", "...", "e.g"
    if (c == '.') {
      size_t k = i;
      while (k > start && para[k - 1] != ' ') --k;
      if (is_abbreviation(para.substr(k, i - k))) continue;
    }
    out.push_back(para.substr(start, j - start));
    start = j;
    i = j == 0 ? 0 : j - 1;
  }
  if (start < para.size()) out.push_back(para.substr(start));
  return out;
}

void keep(const std::string& text, std::vector<std::string>& out) {
  std::string s = clean_sentence(text);
  if (!s.empty()) out.push_back(std::move(s));
}

std::string capitalised(std::string s) {
  if (!s.empty()) s[0] = char(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}

std::string trimmed(const std::string& s) {
  size_t a = s.find_first_not_of(' '), b = s.find_last_not_of(' ');
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

}  // namespace

int64_t count_words(const std::string& sentence) {
  int64_t n = 0;
  for (const std::string& t : tokens_of(sentence)) n += std::any_of(t.begin(), t.end(), is_alpha) ? 1 : 0;
  return n;
}

std::string clean_sentence(const std::string& text) {
  std::string s = collapse_blanks(text);
  while (!s.empty() && s.front() == ' ') s.erase(0, 1);
  if (s.empty() || !std::all_of(s.begin(), s.end(), allowed_char)) return "";
  for (const std::string& t : tokens_of(s)) {
    const bool dash = std::all_of(t.begin(), t.end(), [](char c) { return c == '-'; });
    if (!dash && !std::any_of(t.begin(), t.end(), is_alnum)) return "";
  }
  const int64_t words = count_words(s);
  if (words < kSentenceMinWords || words > kSentenceMaxWords) return "";
  // End with . ! ? (possibly followed by closing quotes or brackets, as in "Go!" or "(yes.)"); otherwise
  // trailing , ; : - are dropped and a full stop is appended at the very end: "(as a rug)" -> "(as a rug).".
  size_t end = s.size();
  while (end > 0 && (s[end - 1] == '"' || s[end - 1] == '\'' || s[end - 1] == ')')) --end;
  if (end == 0) return "";
  const char last = s[end - 1];
  if (last != '.' && last != '!' && last != '?') {
    while (!s.empty() && std::string_view(",;:- ").find(s.back()) != std::string_view::npos) s.pop_back();
    s.push_back('.');
  }
  return s;
}

std::vector<std::string> fortune_sentences(const std::string& text) {
  std::vector<std::string> out;
  std::string entry;
  auto flush = [&] {
    for (const std::string& sentence : split_sentences(collapse_blanks(entry))) keep(sentence, out);
    entry.clear();
  };
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line == "%") {
      flush();
    } else if (trimmed(collapse_blanks(line)).rfind("--", 0) != 0) {  // not an attribution line
      entry += ' ';
      entry += line;
    }
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  flush();
  return out;
}

std::vector<std::string> wordnet_sentences(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.empty() || line[0] == ' ') continue;  // the licence header lines start with blanks
    const size_t bar = line.find(" | ");
    if (bar == std::string::npos) continue;
    const std::string gloss = line.substr(bar + 3);
    std::vector<std::string> parts;
    std::string part;
    bool quoted = false;
    for (char c : gloss) {
      if (c == '"') quoted = !quoted;
      if (c == ';' && !quoted) {
        parts.push_back(part);
        part.clear();
      } else {
        part += c;
      }
    }
    parts.push_back(part);
    for (std::string p : parts) {
      p = trimmed(p);
      if (p.empty()) continue;
      if (p[0] == '"') {
        const size_t close = p.rfind('"');
        if (close == 0) continue;
        keep(capitalised(trimmed(p.substr(1, close - 1))), out);  // the example, without any "- Author"
      } else {
        keep(capitalised(p), out);
      }
    }
  }
  return out;
}

std::vector<std::string> collect_sentences(const SentenceSources& sources) {
  LINTRA_CHECK(fs::is_directory(sources.fortunes_dir),
               "espeak-speech text: '{}' is missing: install Debian's fortunes and fortunes-min (tools/install-deps.sh)",
               sources.fortunes_dir.string());
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(sources.fortunes_dir); it != fs::recursive_directory_iterator();
       ++it) {
    if (it->is_directory() && it->path().filename() == "off") {
      it.disable_recursion_pending();  // the offensive set (fortunes-off)
      continue;
    }
    const std::string ext = it->path().extension().string();
    if (it->is_regular_file() && ext != ".dat" && ext != ".u8") files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  LINTRA_CHECK(!files.empty(), "espeak-speech text: no fortune files in '{}' (install fortunes, fortunes-min)",
               sources.fortunes_dir.string());

  std::vector<std::string> all;
  std::unordered_set<std::string> seen;
  auto add = [&](std::vector<std::string> sentences) {
    for (std::string& s : sentences)
      if (seen.insert(s).second) all.push_back(std::move(s));
  };
  for (const fs::path& f : files) {
    const auto bytes = read_file(f);
    add(fortune_sentences(std::string(bytes.begin(), bytes.end())));
  }
  for (const char* pos : {"noun", "verb", "adj", "adv"}) {
    const fs::path f = sources.wordnet_dir / fmt::format("data.{}", pos);
    LINTRA_CHECK(fs::exists(f), "espeak-speech text: '{}' is missing: install Debian's wordnet-base "
                 "(tools/install-deps.sh)", f.string());
    const auto bytes = read_file(f);
    add(wordnet_sentences(std::string(bytes.begin(), bytes.end())));
  }
  return all;
}

}  // namespace lintra::data
