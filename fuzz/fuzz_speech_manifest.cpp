// fuzz_speech_manifest.cpp — the speech corpus manifest (data/speech/speech_corpus.h: TAB-separated
// split, utterance id, WAV path, phones). Input: the manifest's text.
// Checks: only lintra::Error escapes; every entry that reads has a known split, a non-empty id
// without blanks (unique), a WAV path, at least one phone, all in 1 … 39, and a line number.
#include <cstdint>
#include <set>
#include <string>

#include "data/speech/speech_corpus.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lintra::data;
  const std::string text(reinterpret_cast<const char*>(data), size);
  Manifest m;
  if (!lintra::fuzz::accepts([&] { m = parse_manifest(text, "/corpus/manifest.tsv"); })) return 0;
  FUZZ_CHECK(!m.entries.empty(), "a manifest without entries was accepted");
  std::set<std::string> ids;
  for (const ManifestEntry& e : m.entries) {
    FUZZ_CHECK(e.split == "train" || e.split == "dev" || e.split == "test", "an unknown split was accepted");
    FUZZ_CHECK(!e.id.empty() && e.id.find_first_of(" \t\r\n") == std::string::npos, "a bad utterance id was accepted");
    FUZZ_CHECK(ids.insert(e.id).second, "a duplicate utterance id was accepted");
    FUZZ_CHECK(!e.wav.empty() && e.line >= 1, "an entry without a WAV path or line");
    FUZZ_CHECK(!e.phones.empty(), "an entry without phones was accepted");
    for (int64_t p : e.phones) FUZZ_CHECK(p >= 1 && p <= kNumPhones, "a phone id out of range");
    phones_to_string(e.phones);
    m.where(e);
  }
  return 0;
}
