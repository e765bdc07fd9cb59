// wav.cpp — RIFF/WAVE chunk walk, format checks, int16 samples (see wav.h).
#include "data/speech/wav.h"

#include <cstring>

#include "core/error.h"
#include "data/files/file_io.h"

namespace lintra::data {

namespace {

uint32_t le32(const uint8_t* p) { return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24; }
uint16_t le16(const uint8_t* p) { return uint16_t(p[0] | p[1] << 8); }
void put32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
void put_id(std::vector<uint8_t>& out, const char* id) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(id[i]));
}
void put16(std::vector<uint8_t>& out, uint16_t v) {
  out.push_back(uint8_t(v));
  out.push_back(uint8_t(v >> 8));
}
bool id_is(const uint8_t* p, const char* id) { return std::memcmp(p, id, 4) == 0; }
std::string id_str(const uint8_t* p) {
  std::string s;
  for (int i = 0; i < 4; ++i) s += (p[i] >= 32 && p[i] < 127) ? char(p[i]) : '?';
  return s;
}

constexpr uint16_t kFormatPcm = 1, kFormatExtensible = 0xFFFE;

// Checks the "fmt " chunk whose body starts at byte `at` and holds `size` bytes.
void check_fmt(const std::vector<uint8_t>& b, size_t at, uint32_t size, const std::string& name) {
  LINTRA_CHECK(size >= 16, "{}: byte {} (fmt chunk size): {} bytes, expected at least 16", name, at - 4, size);
  const uint8_t* f = b.data() + at;
  uint16_t format = le16(f), channels = le16(f + 2), block_align = le16(f + 12), bits = le16(f + 14);
  uint32_t rate = le32(f + 4);
  if (format == kFormatExtensible) {
    // WAVEFORMATEXTENSIBLE: cbSize at 16, valid bits at 18, channel mask at 20, sub-format GUID at 24.
    LINTRA_CHECK(size >= 40, "{}: byte {} (fmt chunk size): {} bytes, too short for WAVE_FORMAT_EXTENSIBLE (40)",
                 name, at - 4, size);
    uint16_t sub = le16(f + 24);
    LINTRA_CHECK(sub == kFormatPcm, "{}: byte {} (fmt sub-format): format {}, expected 1 (PCM)", name, at + 24, sub);
  } else {
    LINTRA_CHECK(format == kFormatPcm, "{}: byte {} (fmt audio format): format {}, expected 1 (integer PCM){}", name,
                 at, format, format == 3 ? "; this is float audio: convert with `sox -G in.wav -b 16 out.wav`" : "");
  }
  LINTRA_CHECK(channels == 1, "{}: byte {} (fmt channels): {} channels, expected 1 (mono); convert with "
               "`sox -G in.wav -c 1 out.wav`", name, at + 2, channels);
  LINTRA_CHECK(rate == uint32_t(kWavSampleRate),
               "{}: byte {} (fmt sample rate): {} Hz, expected {} Hz; resample with `sox -G in.wav -r 16000 out.wav`",
               name, at + 4, rate, kWavSampleRate);
  LINTRA_CHECK(bits == 16, "{}: byte {} (fmt bits per sample): {}-bit samples, expected 16-bit; convert with "
               "`sox -G in.wav -b 16 out.wav`", name, at + 14, bits);
  LINTRA_CHECK(block_align == 2, "{}: byte {} (fmt block align): {}, expected 2 for 16-bit mono", name, at + 12,
               block_align);
}

}  // namespace

Wav parse_wav(const std::vector<uint8_t>& b, const std::string& name) {
  LINTRA_CHECK(b.size() >= 12, "{}: byte 0: {} bytes, too short for a RIFF/WAVE header (12)", name, b.size());
  LINTRA_CHECK(id_is(b.data(), "RIFF"), "{}: byte 0: not a RIFF file (starts with '{}')", name, id_str(b.data()));
  LINTRA_CHECK(id_is(b.data() + 8, "WAVE"), "{}: byte 8: RIFF form '{}', expected 'WAVE'", name,
               id_str(b.data() + 8));
  bool have_fmt = false;
  size_t at = 12;
  while (at + 8 <= b.size()) {
    const uint8_t* c = b.data() + at;
    const uint32_t size = le32(c + 4);
    const size_t body = at + 8;
    if (id_is(c, "fmt ")) {
      LINTRA_CHECK(body + size <= b.size(), "{}: byte {} (fmt chunk): {} bytes declared but the file ends at byte {}",
                   name, at, size, b.size());
      check_fmt(b, body, size, name);
      have_fmt = true;
    } else if (id_is(c, "data")) {
      LINTRA_CHECK(have_fmt, "{}: byte {} (data chunk): comes before any 'fmt ' chunk", name, at);
      LINTRA_CHECK(body + size <= b.size(),
                   "{}: byte {} (data chunk): truncated: {} bytes declared but the file ends at byte {} ({} bytes "
                   "of samples present)", name, at, size, b.size(), b.size() - body);
      LINTRA_CHECK(size % 2 == 0, "{}: byte {} (data chunk size): {} bytes is not a whole number of 16-bit samples",
                   name, at + 4, size);
      LINTRA_CHECK(size > 0, "{}: byte {} (data chunk size): the file holds no samples", name, at + 4);
      Wav w;
      w.samples.resize(size / 2);
      for (size_t i = 0; i < w.samples.size(); ++i) w.samples[i] = int16_t(le16(b.data() + body + 2 * i));
      return w;
    }
    at = body + size + (size & 1);  // chunks are padded to an even length
  }
  LINTRA_CHECK(have_fmt, "{}: byte {}: no 'fmt ' chunk before the end of the file", name, b.size());
  LINTRA_FAIL("{}: byte {}: no 'data' chunk before the end of the file", name, b.size());
}

Wav read_wav(const std::filesystem::path& path) { return parse_wav(read_file(path), path.string()); }

std::vector<uint8_t> encode_wav(const std::vector<int16_t>& samples, int sample_rate) {
  const uint32_t data_bytes = uint32_t(samples.size() * 2);
  std::vector<uint8_t> out;
  out.reserve(44 + data_bytes);
  put_id(out, "RIFF");
  put32(out, 36 + data_bytes);
  put_id(out, "WAVE");
  put_id(out, "fmt ");
  put32(out, 16);
  put16(out, kFormatPcm);
  put16(out, 1);                          // channels
  put32(out, uint32_t(sample_rate));
  put32(out, uint32_t(sample_rate) * 2);  // byte rate
  put16(out, 2);                          // block align
  put16(out, 16);                         // bits per sample
  put_id(out, "data");
  put32(out, data_bytes);
  for (int16_t s : samples) put16(out, uint16_t(s));
  return out;
}

void write_wav(const std::filesystem::path& path, const std::vector<int16_t>& samples, int sample_rate) {
  write_file(path, encode_wav(samples, sample_rate));
}

}  // namespace lintra::data
