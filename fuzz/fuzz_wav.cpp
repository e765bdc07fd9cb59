// fuzz_wav.cpp — the WAV reader (data/speech/wav.h: RIFF chunks, 16-bit mono 16 kHz PCM only) and the
// filterbank front end over what it reads. Input: the bytes of one WAV file.
// Checks: only lintra::Error escapes; a file that reads has samples; the features of one that holds
// at least one window are finite.
#include <cmath>
#include <cstdint>
#include <vector>

#include "data/speech/fbank.h"
#include "data/speech/wav.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lintra::data;
  static const Fbank fbank;
  const std::vector<uint8_t> bytes(data, data + size);
  Wav w;
  if (!lintra::fuzz::accepts([&] { w = parse_wav(bytes, "a.wav"); })) return 0;
  FUZZ_CHECK(!w.samples.empty() && w.sample_rate == kWavSampleRate, "a WAV without samples was accepted");
  const int64_t n = int64_t(w.samples.size());
  if (n < kFbankWindow) return 0;  // shorter than one window: the front end refuses it (tested elsewhere)
  const int64_t frames = fbank_num_frames(n);
  std::vector<float> x(w.samples.begin(), w.samples.end()), out(size_t(frames * kFbankDim));
  fbank.compute(x.data(), n, out.data());
  for (float v : out) FUZZ_CHECK(std::isfinite(v), "a non-finite filterbank feature");
  return 0;
}
