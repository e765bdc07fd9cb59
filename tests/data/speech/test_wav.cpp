// test_wav.cpp — WAV reading: a written 16-bit PCM file round-trips; every refused format, a truncated
// data chunk and an empty file give an error naming the file and the field or byte offset.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "data/files/file_io.h"
#include "data/files/shell.h"
#include "data/speech/wav.h"
#include "tests/data/test_util.h"

namespace lintra::data {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::error_of;

void set16(std::vector<uint8_t>& b, size_t at, uint16_t v) {
  b[at] = uint8_t(v);
  b[at + 1] = uint8_t(v >> 8);
}
void set32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + size_t(i)] = uint8_t(v >> (8 * i));
}

struct WavFiles {
  TempDir tmp{"lintra-test-wav"};
  std::vector<int16_t> samples{0, 1, -1, 32767, -32768, 1234, -4321, 7};
  // Writes `bytes` to <tmp>/<name> and returns read_wav's error message.
  std::string error_for(const std::string& name, const std::vector<uint8_t>& bytes) {
    const auto path = tmp.path() / name;
    write_file(path, bytes);
    std::string msg = error_of([&] { read_wav(path); });
    EXPECT_THAT(msg, HasSubstr(path.string()));
    return msg;
  }
};

TEST(DataWav, RoundTrip) {
  WavFiles f;
  const auto path = f.tmp.path() / "a.wav";
  write_wav(path, f.samples);
  EXPECT_EQ(read_file(path).size(), 44 + 2 * f.samples.size());
  Wav w = read_wav(path);
  EXPECT_EQ(w.sample_rate, 16000);
  EXPECT_EQ(w.samples, f.samples);
}

TEST(DataWav, SkipsOtherChunksAndAcceptsExtensiblePcm) {
  WavFiles f;
  std::vector<uint8_t> b = encode_wav(f.samples);
  // Insert an odd-sized LIST chunk (padded to even) between "fmt " and "data".
  std::vector<uint8_t> list = {'L', 'I', 'S', 'T', 3, 0, 0, 0, 'a', 'b', 'c', 0};
  b.insert(b.begin() + 36, list.begin(), list.end());
  EXPECT_EQ(parse_wav(b, "x.wav").samples, f.samples);

  // WAVE_FORMAT_EXTENSIBLE: 40-byte fmt with the PCM sub-format.
  std::vector<uint8_t> e = encode_wav(f.samples);
  set32(e, 16, 40);
  set16(e, 20, 0xFFFE);
  std::vector<uint8_t> ext(24, 0);
  ext[0] = 22;   // cbSize
  ext[2] = 16;   // valid bits
  ext[8] = 1;    // sub-format GUID starts with 0x0001 (PCM)
  e.insert(e.begin() + 36, ext.begin(), ext.end());
  EXPECT_EQ(parse_wav(e, "ext.wav").samples, f.samples);
  ext[8] = 3;  // float sub-format
  std::vector<uint8_t> e2 = encode_wav(f.samples);
  set32(e2, 16, 40);
  set16(e2, 20, 0xFFFE);
  e2.insert(e2.begin() + 36, ext.begin(), ext.end());
  EXPECT_THAT(f.error_for("extfloat.wav", e2), HasSubstr("fmt sub-format"));
}

TEST(DataWav, RefusedFormatsNameTheFileAndField) {
  WavFiles f;
  const std::vector<uint8_t> good = encode_wav(f.samples);

  EXPECT_THAT(f.error_for("text.wav", {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd', '!', '!'}),
              AllOf(HasSubstr("byte 0"), HasSubstr("not a RIFF file")));
  EXPECT_THAT(f.error_for("short.wav", {'R', 'I', 'F'}), HasSubstr("too short"));
  auto avi = good;
  std::copy_n("AVI ", 4, avi.begin() + 8);
  EXPECT_THAT(f.error_for("avi.wav", avi), AllOf(HasSubstr("byte 8"), HasSubstr("'AVI '")));

  auto flt = good;
  set16(flt, 20, 3);
  EXPECT_THAT(f.error_for("float.wav", flt), AllOf(HasSubstr("byte 20 (fmt audio format)"), HasSubstr("float")));
  auto alaw = good;
  set16(alaw, 20, 6);
  EXPECT_THAT(f.error_for("alaw.wav", alaw), HasSubstr("format 6, expected 1"));

  for (uint16_t bits : {8, 24, 32}) {
    auto b = good;
    set16(b, 34, bits);
    set16(b, 32, uint16_t(bits / 8));
    EXPECT_THAT(f.error_for(std::to_string(bits) + "bit.wav", b),
                AllOf(HasSubstr("byte 34 (fmt bits per sample)"), HasSubstr(std::to_string(bits) + "-bit")));
  }
  auto stereo = good;
  set16(stereo, 22, 2);
  set16(stereo, 32, 4);
  EXPECT_THAT(f.error_for("stereo.wav", stereo), AllOf(HasSubstr("byte 22 (fmt channels)"), HasSubstr("2 channels")));

  auto rate = good;
  set32(rate, 24, 22050);
  EXPECT_THAT(f.error_for("22k.wav", rate), AllOf(HasSubstr("byte 24 (fmt sample rate)"), HasSubstr("22050 Hz"),
                                                 HasSubstr("sox -G in.wav -r 16000 out.wav")));
}

TEST(DataWav, TruncatedEmptyOrMissingChunks) {
  WavFiles f;
  const std::vector<uint8_t> good = encode_wav(f.samples);

  auto truncated = good;
  truncated.resize(truncated.size() - 5);
  EXPECT_THAT(f.error_for("truncated.wav", truncated),
              AllOf(HasSubstr("byte 36 (data chunk)"), HasSubstr("truncated"), HasSubstr("16 bytes declared")));

  EXPECT_THAT(f.error_for("empty.wav", encode_wav({})), AllOf(HasSubstr("byte 40"), HasSubstr("no samples")));

  auto odd = good;
  set32(odd, 40, 15);
  EXPECT_THAT(f.error_for("odd.wav", odd), HasSubstr("not a whole number of 16-bit samples"));

  std::vector<uint8_t> no_data(good.begin(), good.begin() + 36);
  EXPECT_THAT(f.error_for("nodata.wav", no_data), HasSubstr("no 'data' chunk"));
  std::vector<uint8_t> no_fmt(good.begin(), good.begin() + 12);
  EXPECT_THAT(f.error_for("nofmt.wav", no_fmt), HasSubstr("no 'fmt ' chunk"));

  const auto missing = f.tmp.path() / "missing.wav";
  EXPECT_THAT(error_of([&] { read_wav(missing); }), HasSubstr(missing.string()));
}

}  // namespace
}  // namespace lintra::data
