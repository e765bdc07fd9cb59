// speech_corpus_phones.cpp — the 39-phone ARPAbet set and the split names (see speech_corpus.h).
#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "core/error.h"
#include "data/speech/speech_corpus.h"

namespace lintra::data {

const std::vector<std::string>& phone_set() {
  static const std::vector<std::string> phones = {
      "AA", "AE", "AH", "AO", "AW", "AY", "B",  "CH", "D",  "DH", "EH", "ER", "EY", "F",  "G",  "HH", "IH", "IY", "JH", "K",
      "L",  "M",  "N",  "NG", "OW", "OY", "P",  "R",  "S",  "SH", "T",  "TH", "UH", "UW", "V",  "W",  "Y",  "Z",  "ZH"};
  return phones;
}

int64_t find_phone_id(const std::string& name) {
  const auto& set = phone_set();
  auto it = std::lower_bound(set.begin(), set.end(), name);  // the set is sorted
  return (it != set.end() && *it == name) ? int64_t(it - set.begin()) + 1 : 0;
}

int64_t phone_id(const std::string& name) {
  int64_t id = find_phone_id(name);
  LINTRA_CHECK(id > 0, "phone '{}' is not in the 39-phone ARPAbet set ({})", name, fmt::join(phone_set(), " "));
  return id;
}

const std::string& phone_name(int64_t id) {
  static const std::string blank = "<blank>";
  if (id == 0) return blank;
  LINTRA_CHECK(id >= 1 && id <= kNumPhones, "phone id {} is out of range (1 … {}; 0 is the CTC blank)", id,
               kNumPhones);
  return phone_set()[size_t(id - 1)];
}

std::vector<int64_t> parse_phones(const std::string& text) {
  std::vector<int64_t> ids;
  std::istringstream in(text);
  std::string p;
  while (in >> p) {
    int64_t id = find_phone_id(p);
    if (id == 0 && p.size() > 1 && p.back() >= '0' && p.back() <= '2') id = find_phone_id(p.substr(0, p.size() - 1));
    if (id == 0) phone_id(p);  // throws with the set
    ids.push_back(id);
  }
  return ids;
}

std::string phones_to_string(const std::vector<int64_t>& ids) {
  std::string s;
  for (int64_t id : ids) {
    if (!s.empty()) s += ' ';
    s += phone_name(id);
  }
  return s;
}

const std::vector<std::string>& speech_splits() {
  static const std::vector<std::string> splits = {"train", "dev", "test"};
  return splits;
}

void check_speech_split(const std::string& split) {
  const auto& s = speech_splits();
  LINTRA_CHECK(std::find(s.begin(), s.end(), split) != s.end(), "speech split must be train, dev or test, got '{}'",
               split);
}

}  // namespace lintra::data
