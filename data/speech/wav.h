// wav.h — RIFF/WAVE reading and writing for the speech pipeline: 16-bit PCM, mono, 16 kHz only.
//
// Layout read: "RIFF" <u32 size> "WAVE", then chunks of <4-byte id> <u32 little-endian size> <data,
// padded to an even length>. "fmt " (before "data") must say: format 1 (PCM; WAVE_FORMAT_EXTENSIBLE
// 0xFFFE with the PCM sub-format is accepted too), 1 channel, 16000 Hz, 16 bits per sample, block
// align 2. "data" holds the little-endian int16 samples. Other chunks (LIST, fact, ...) are skipped.
// The RIFF size field is not trusted (some writers leave it wrong); the data chunk's size is, and a
// data chunk that runs past the end of the file is an error.
//
// Decision: anything else is refused, not converted. Another sample rate is an error whose message
// says to resample with `sox -G in.wav -r 16000 out.wav` (the espeak-speech builder does exactly that
// itself); stereo, 8/24/32-bit or float audio, a missing or truncated chunk and a file with no
// samples are errors too. Every error names the file and the byte offset or header field at fault,
// e.g. "a.wav: byte 22 (fmt channels): 2 channels, expected 1 (mono)".
//
// Cost: one read of the file; O(samples).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace lintra::data {

inline constexpr int kWavSampleRate = 16000;

struct Wav {
  int sample_rate = kWavSampleRate;
  std::vector<int16_t> samples;  // mono
};

// Reads and checks `path` (see above). Throws lintra::Error naming the file and offset/field.
Wav read_wav(const std::filesystem::path& path);

// Parses the bytes of a WAV file; `name` is used in messages.
Wav parse_wav(const std::vector<uint8_t>& bytes, const std::string& name);

// The bytes of a canonical 44-byte-header PCM WAV (mono, 16 bits) at `sample_rate`.
std::vector<uint8_t> encode_wav(const std::vector<int16_t>& samples, int sample_rate = kWavSampleRate);

// Writes encode_wav(samples, sample_rate) to `path`.
void write_wav(const std::filesystem::path& path, const std::vector<int16_t>& samples,
               int sample_rate = kWavSampleRate);

}  // namespace lintra::data
