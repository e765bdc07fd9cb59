// fbank.h — 40-dim log-mel filterbank features (the paper's WSJ input; DATA.md "Features").
//
// Input: mono samples at 16 kHz on the int16 scale (values in [-32768, 32767], not divided by 32768;
// like Kaldi and sphinx_fe, so log energies are shifted by a constant that normalisation removes).
// Output: frames × 40 float32, row-major.
//
//   frames  T = 1 + ⌊(N − 400) / 160⌋ for N ≥ 400 samples (25 ms window, 10 ms hop, no padding; the
//           last partial window is dropped). N < 400 is an error.
//   frame t x[n] = s[160 t + n], n = 0 … 399
//     DC removal     x[n] ← x[n] − mean(x)
//     pre-emphasis   y[n] = x[n] − 0.97 x[n − 1] for n ≥ 1, y[0] = x[0] − 0.97 x[0] (Kaldi's convention)
//     Hamming        y[n] ← y[n] (0.54 − 0.46 cos(2π n / 399))
//     power          P[k] = |Σ_n y[n] e^{−2πi k n / 512}|², k = 0 … 256 (zero-padded to 512; radix-2 FFT)
//     mel            m(f) = 1127 ln(1 + f / 700); 42 points equally spaced in mel from m(20 Hz) to
//                    m(8000 Hz): filter j (0 … 39) rises from point j to j + 1 and falls to j + 2,
//                    w_j(k) = triangle evaluated at m(k · 16000 / 512) (triangles in the mel domain, as Kaldi)
//     log            F[t][j] = ln(max(Σ_k w_j(k) P[k], 1e-10))
//
// Complexity per frame: O(400) windowing, O(512 log2 512) FFT, O(257) filters (each FFT bin lies
// under at most two triangles, so the filterbank is stored sparsely); in all O(T · 512 · 9) for an
// utterance: about 18 ms for 8 s of audio on one core. Deterministic (double-precision arithmetic in
// a fixed order) and thread-safe: Fbank is immutable after construction.
#pragma once

#include <complex>
#include <cstdint>
#include <vector>

namespace lintra::data {

inline constexpr int64_t kFbankDim = 40;
inline constexpr int64_t kFbankSampleRate = 16000;
inline constexpr int64_t kFbankWindow = 400;  // 25 ms
inline constexpr int64_t kFbankHop = 160;     // 10 ms
inline constexpr int64_t kFbankFftSize = 512;
inline constexpr double kFbankPreemphasis = 0.97;
inline constexpr double kFbankLowHz = 20.0, kFbankHighHz = 8000.0;
inline constexpr double kFbankLogFloor = 1e-10;

// 1 + (samples − 400) / 160; throws lintra::Error when samples < 400 (shorter than one window).
int64_t fbank_num_frames(int64_t samples);

// In-place radix-2 decimation-in-time FFT, X[k] = Σ_n x[n] e^{−2πi k n / N}; N must be a power of
// two (throws otherwise). O(N log N).
void fft_inplace(std::vector<std::complex<double>>& x);

double hz_to_mel(double hz);  // 1127 ln(1 + hz / 700)
double mel_to_hz(double mel);

class Fbank {
 public:
  Fbank();

  // Features of `n` samples into out[fbank_num_frames(n) × 40].
  void compute(const float* samples, int64_t n, float* out) const;
  std::vector<float> compute(const std::vector<float>& samples) const;
  std::vector<float> compute(const std::vector<int16_t>& samples) const;

  // Centre frequency (Hz) of each of the 40 mel filters, ascending.
  const std::vector<double>& center_hz() const { return center_hz_; }

 private:
  struct Filter {
    int64_t first_bin = 0;        // first FFT bin with a non-zero weight
    std::vector<double> weights;  // weights of bins first_bin, first_bin + 1, …
  };
  std::vector<double> window_;  // Hamming, 400
  std::vector<std::complex<double>> twiddles_;  // e^{−2πi k / 512}, k < 256
  std::vector<Filter> filters_;  // 40
  std::vector<double> center_hz_;
};

// The process-wide Fbank (built once, thread-safe).
const Fbank& default_fbank();

}  // namespace lintra::data
