// espeak_corpus_build.cpp — prepare_espeak_speech: parallel synthesis, manifest, prepare_speech, stamp
// (see espeak_corpus.h).
#include <fmt/format.h>
#include <omp.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "data/files/digest.h"
#include "data/speech/espeak_corpus.h"
#include "data/speech/espeak_corpus_phonemes.h"
#include "data/speech/espeak_corpus_text.h"
#include "data/files/file_io.h"
#include "data/files/shell.h"

namespace lintra::data {

namespace fs = std::filesystem;

namespace {

constexpr const char* kStampHeader = "lintra espeak-speech stamp 1";
const std::vector<std::string> kStampedFiles = {"manifest.tsv", "utterances.tsv", "train.h5", "dev.h5", "test.h5"};

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// XXH3-64 of a file's bytes, streamed.
uint64_t file_digest(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  LINTRA_CHECK(in.good(), "cannot open '{}'", path.string());
  Xxh3 h;
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), std::streamsize(buf.size()));
    h.update(buf.data(), size_t(in.gcount()));
  }
  LINTRA_CHECK(in.eof(), "read error in '{}'", path.string());
  return h.digest();
}

// Synthesises `u` into wav_dir/<id>.wav (16 kHz) and returns its phone ids. Scratch files in `work`.
std::vector<int64_t> synthesise(const EspeakUtterance& u, const fs::path& work, const fs::path& wav_dir,
                                const EspeakPhoneMap& map) {
  const fs::path txt = work / (u.id + ".txt"), pho = work / (u.id + ".pho"), raw = work / (u.id + ".22k.wav");
  const std::string text = u.text() + "\n";
  write_file(txt, std::vector<uint8_t>(text.begin(), text.end()));
  run_shell_checked(espeak_command(u, txt, pho, raw, wav_dir / (u.id + ".wav")),
                    fmt::format("espeak-speech: synthesising utterance '{}'", u.id));
  const auto bytes = read_file(pho);
  std::vector<int64_t> ids;
  try {
    ids = map_espeak_phonemes(clean_espeak_phonemes(std::string(bytes.begin(), bytes.end())), map, u.id);
  } catch (const Error& e) {
    throw Error(fmt::format("{} (text: \"{}\")", e.what(), u.text()));
  }
  LINTRA_CHECK(!ids.empty(), "espeak-speech: utterance '{}' produced no phonemes (text: \"{}\")", u.id, u.text());
  fs::remove(txt);
  fs::remove(pho);
  fs::remove(raw);
  return ids;
}

void write_text(const fs::path& path, const std::string& text) {
  write_file(path, std::vector<uint8_t>(text.begin(), text.end()));
}

struct Stamp {
  std::string size;
  uint64_t seed = 0;
  bool keep_wavs = false;
  struct File {
    std::string name;
    int64_t bytes = 0;
    std::string digest;
  };
  std::vector<File> files;
};

Stamp read_stamp(const fs::path& path) {
  std::ifstream in(path);
  LINTRA_CHECK(in.good(), "cannot open '{}'", path.string());
  std::string line;
  std::getline(in, line);
  LINTRA_CHECK(line == kStampHeader, "{}: not an espeak-speech stamp (first line '{}')", path.string(), line);
  Stamp s;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string key;
    f >> key;
    if (key == "size") f >> s.size;
    else if (key == "seed") f >> s.seed;
    else if (key == "keep_wavs") f >> s.keep_wavs;
    else if (key == "file") {
      Stamp::File file;
      f >> file.name >> file.bytes >> file.digest;
      s.files.push_back(file);
    }
    LINTRA_CHECK(!f.fail(), "{}: malformed line '{}'", path.string(), line);
  }
  LINTRA_CHECK(s.files.size() == kStampedFiles.size(), "{}: lists {} files, expected {}", path.string(),
               s.files.size(), kStampedFiles.size());
  return s;
}

// Verifies a finished corpus against its stamp; throws naming what differs.
void verify_corpus(const fs::path& dir, const EspeakCorpusOptions& opt, const LogFn& say) {
  const Stamp s = read_stamp(dir / "stamp.txt");
  LINTRA_CHECK(s.size == opt.size, "{}: stamp says size '{}', expected '{}'", dir.string(), s.size, opt.size);
  LINTRA_CHECK(s.seed == opt.seed, "{} was built with seed {}, not {}: delete the folder to build it with seed {}",
               dir.string(), s.seed, opt.seed, opt.seed);
  for (const Stamp::File& f : s.files) {
    const fs::path p = dir / f.name;
    LINTRA_CHECK(fs::exists(p), "{}: missing (delete {} and prepare again)", p.string(), dir.string());
    const int64_t bytes = int64_t(fs::file_size(p));
    LINTRA_CHECK(bytes == f.bytes, "{}: {} bytes, the stamp says {} (delete {} and prepare again)", p.string(), bytes,
                 f.bytes, dir.string());
    const std::string digest = digest_hex(file_digest(p));
    LINTRA_CHECK(digest == f.digest, "{}: XXH3 {} differs from the stamp's {} (delete {} and prepare again)",
                 p.string(), digest, f.digest, dir.string());
  }
  if (opt.keep_wavs && !s.keep_wavs) say("espeak-speech: note: this corpus was built without keeping its WAVs");
}

// Synthesises every utterance on all threads; returns the phone ids of each, in plan order.
std::vector<std::vector<int64_t>> synthesise_all(const std::vector<EspeakUtterance>& plan, const fs::path& work,
                                                 const fs::path& wav_dir, const LogFn& say) {
  const EspeakPhoneMap& map = default_espeak_phone_map();
  const int64_t n = int64_t(plan.size());
  std::vector<std::vector<int64_t>> phones(static_cast<size_t>(n));
  std::vector<std::exception_ptr> errors(static_cast<size_t>(n));
  std::atomic<int64_t> done{0};
  std::atomic<bool> failed{false};
  const auto start = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t i = 0; i < n; ++i) {
    if (failed.load()) continue;  // stop early after an error
    try {
      phones[size_t(i)] = synthesise(plan[size_t(i)], work, wav_dir, map);
    } catch (...) {
      errors[size_t(i)] = std::current_exception();
      failed = true;
    }
    const int64_t d = ++done;
    if (d % std::max<int64_t>(1, n / 10) == 0 || d == n) {
#pragma omp critical(lintra_espeak_log)
      say(fmt::format("espeak-speech: synthesised {}/{} utterances ({:.1f} s)", d, n, seconds_since(start)));
    }
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  return phones;
}

}  // namespace

bool espeak_speech_present(const fs::path& cache_dir, const std::string& size) {
  const fs::path dir = espeak_speech_dir(cache_dir, size);
  try {
    if (!fs::exists(dir / "stamp.txt")) return false;
    for (const Stamp::File& f : read_stamp(dir / "stamp.txt").files) {
      std::error_code ec;
      auto bytes = fs::file_size(dir / f.name, ec);
      if (ec || int64_t(bytes) != f.bytes) return false;
    }
    return true;
  } catch (const Error&) {
    return false;
  }
}

fs::path prepare_espeak_speech(const fs::path& cache_dir, const EspeakCorpusOptions& opt, const LogFn& log) {
  auto say = [&](const std::string& msg) {
    if (log) log(msg);
  };
  const EspeakSizeSpec& spec = espeak_size_spec(opt.size);
  const fs::path dir = espeak_speech_dir(cache_dir, opt.size);
  if (fs::exists(dir / "stamp.txt")) {
    verify_corpus(dir, opt, say);
    say(fmt::format("espeak-speech: {} present and verified in {}", opt.size, dir.string()));
    return dir;
  }
  LINTRA_CHECK(!fs::exists(dir), "{} exists but has no stamp.txt (not made by a finished `prepare espeak-speech`): "
               "delete it and run again", dir.string());
  LINTRA_CHECK(have_program("espeak-ng") && have_program("sox"),
               "espeak-speech needs espeak-ng and sox on PATH: run tools/install-deps.sh (Debian espeak-ng, sox)");

  const auto start = std::chrono::steady_clock::now();
  const fs::path partial = dir.string() + ".partial";
  if (fs::exists(partial)) {
    say(fmt::format("espeak-speech: removing {} left by an unfinished build", partial.string()));
    fs::remove_all(partial);
  }
  const fs::path work = partial / "work", wav_dir = partial / "wav";
  fs::create_directories(work);
  fs::create_directories(wav_dir);

  const std::vector<std::string> sentences = collect_sentences();
  const std::vector<EspeakUtterance> plan = plan_espeak_corpus(opt, sentences);
  say(fmt::format("espeak-speech {} (seed {}): {} sentences read ({:.1f} s); {} train / {} dev / {} test "
                  "utterances; synthesising on {} threads", opt.size, opt.seed, sentences.size(), seconds_since(start),
                  spec.train, spec.dev, spec.test, omp_get_max_threads()));
  const auto phones = synthesise_all(plan, work, wav_dir, say);
  fs::remove_all(work);

  std::string manifest = fmt::format("# espeak-speech {} seed {}: split, id, wav, ARPAbet phones (see utterances.tsv "
                                     "for voices and texts){}\n", opt.size, opt.seed,
                                     opt.keep_wavs ? "" : "; the WAVs were deleted once the features were made");
  std::string utterances = "# id\tsplit\tvoice\tspeed\tpitch\tgap\ttext\n";
  for (size_t i = 0; i < plan.size(); ++i) {
    const EspeakUtterance& u = plan[i];
    manifest += fmt::format("{}\t{}\twav/{}.wav\t{}\n", u.split, u.id, u.id, phones_to_string(phones[i]));
    utterances += fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\n", u.id, u.split, u.voice, u.speed, u.pitch, u.gap, u.text());
  }
  write_text(partial / "manifest.tsv", manifest);
  write_text(partial / "utterances.tsv", utterances);

  prepare_speech(partial / "manifest.tsv", partial, {}, log);
  if (!opt.keep_wavs) fs::remove_all(wav_dir);

  std::string stamp = fmt::format("{}\nsize {}\nseed {}\nkeep_wavs {}\n", kStampHeader, opt.size, opt.seed,
                                  opt.keep_wavs ? 1 : 0);
  Xxh3 all;
  for (const std::string& name : kStampedFiles) {
    const uint64_t d = file_digest(partial / name);
    all.update_value(d);
    stamp += fmt::format("file {} {} {}\n", name, fs::file_size(partial / name), digest_hex(d));
  }
  stamp += fmt::format("digest {}\n", digest_hex(all.digest()));
  write_text(partial / "stamp.txt", stamp);
  fs::rename(partial, dir);
  say(fmt::format("espeak-speech: {} ready in {} ({:.1f} s)", opt.size, dir.string(), seconds_since(start)));
  return dir;
}

}  // namespace lintra::data
