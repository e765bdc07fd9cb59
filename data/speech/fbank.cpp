// fbank.cpp — radix-2 FFT, Hamming window, mel triangles and the per-frame pipeline (see fbank.h).
#include "data/speech/fbank.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/error.h"

namespace lintra::data {

int64_t fbank_num_frames(int64_t samples) {
  LINTRA_CHECK(samples >= kFbankWindow,
               "fbank: {} samples is shorter than one 25 ms analysis window ({} samples at 16 kHz)", samples,
               kFbankWindow);
  return 1 + (samples - kFbankWindow) / kFbankHop;
}

namespace {

// e^{−2πi k / n} for k < n / 2.
std::vector<std::complex<double>> twiddles(size_t n) {
  std::vector<std::complex<double>> tw(n / 2);
  for (size_t k = 0; k < n / 2; ++k) tw[k] = std::polar(1.0, -2.0 * std::numbers::pi * double(k) / double(n));
  return tw;
}

// Iterative radix-2 FFT with a precomputed twiddle table of size x.size() / 2.
void fft_with_twiddles(std::vector<std::complex<double>>& x, const std::vector<std::complex<double>>& tw) {
  const size_t n = x.size();
  // Bit-reversal permutation.
  for (size_t i = 1, j = 0; i < n; ++i) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(x[i], x[j]);
  }
  // Butterflies: stages of length 2, 4, …, n; stage `len` uses every (n / len)-th twiddle.
  for (size_t len = 2; len <= n; len <<= 1) {
    const size_t half = len / 2, stride = n / len;
    for (size_t start = 0; start < n; start += len) {
      for (size_t k = 0; k < half; ++k) {
        const std::complex<double> a = x[start + k], b = x[start + k + half] * tw[k * stride];
        x[start + k] = a + b;
        x[start + k + half] = a - b;
      }
    }
  }
}

}  // namespace

void fft_inplace(std::vector<std::complex<double>>& x) {
  const size_t n = x.size();
  LINTRA_CHECK(n > 0 && (n & (n - 1)) == 0, "fft: size {} is not a power of two", n);
  fft_with_twiddles(x, twiddles(n));
}

double hz_to_mel(double hz) { return 1127.0 * std::log(1.0 + hz / 700.0); }
double mel_to_hz(double mel) { return 700.0 * (std::exp(mel / 1127.0) - 1.0); }

Fbank::Fbank() : window_(size_t(kFbankWindow)), twiddles_(twiddles(size_t(kFbankFftSize))) {
  for (int64_t n = 0; n < kFbankWindow; ++n) {
    window_[size_t(n)] = 0.54 - 0.46 * std::cos(2.0 * std::numbers::pi * double(n) / double(kFbankWindow - 1));
  }
  const double lo = hz_to_mel(kFbankLowHz), hi = hz_to_mel(kFbankHighHz);
  const double step = (hi - lo) / double(kFbankDim + 1);
  const int64_t bins = kFbankFftSize / 2 + 1;
  for (int64_t j = 0; j < kFbankDim; ++j) {
    const double left = lo + step * double(j), centre = left + step, right = centre + step;
    center_hz_.push_back(mel_to_hz(centre));
    Filter f;
    f.first_bin = -1;
    for (int64_t k = 0; k < bins; ++k) {
      const double m = hz_to_mel(double(k) * double(kFbankSampleRate) / double(kFbankFftSize));
      double w = 0.0;
      if (m > left && m <= centre) w = (m - left) / (centre - left);
      else if (m > centre && m < right) w = (right - m) / (right - centre);
      if (w <= 0.0) {
        if (f.first_bin >= 0) break;  // past the triangle
        continue;
      }
      if (f.first_bin < 0) f.first_bin = k;
      f.weights.push_back(w);
    }
    // The narrowest (lowest) triangle spans about 20–112 Hz, so it covers FFT bins (31.25 Hz apart).
    LINTRA_CHECK(f.first_bin >= 0, "fbank: mel filter {} covers no FFT bin", j);
    filters_.push_back(std::move(f));
  }
}

void Fbank::compute(const float* samples, int64_t n, float* out) const {
  const int64_t frames = fbank_num_frames(n);
  std::vector<double> x(static_cast<size_t>(kFbankWindow));
  std::vector<std::complex<double>> spec(static_cast<size_t>(kFbankFftSize));
  std::vector<double> power(static_cast<size_t>(kFbankFftSize / 2 + 1));
  for (int64_t t = 0; t < frames; ++t) {
    const float* s = samples + t * kFbankHop;
    double mean = 0.0;
    for (int64_t i = 0; i < kFbankWindow; ++i) mean += double(s[i]);
    mean /= double(kFbankWindow);
    for (int64_t i = 0; i < kFbankWindow; ++i) x[size_t(i)] = double(s[i]) - mean;
    for (int64_t i = kFbankWindow - 1; i > 0; --i) x[size_t(i)] -= kFbankPreemphasis * x[size_t(i - 1)];
    x[0] -= kFbankPreemphasis * x[0];
    std::fill(spec.begin(), spec.end(), std::complex<double>(0.0, 0.0));
    for (int64_t i = 0; i < kFbankWindow; ++i) spec[size_t(i)] = x[size_t(i)] * window_[size_t(i)];
    fft_with_twiddles(spec, twiddles_);
    for (size_t k = 0; k < power.size(); ++k) power[k] = std::norm(spec[k]);
    float* o = out + t * kFbankDim;
    for (int64_t j = 0; j < kFbankDim; ++j) {
      const Filter& f = filters_[size_t(j)];
      double e = 0.0;
      for (size_t k = 0; k < f.weights.size(); ++k) e += f.weights[k] * power[size_t(f.first_bin) + k];
      o[j] = float(std::log(std::max(e, kFbankLogFloor)));
    }
  }
}

std::vector<float> Fbank::compute(const std::vector<float>& samples) const {
  std::vector<float> out(size_t(fbank_num_frames(int64_t(samples.size())) * kFbankDim));
  compute(samples.data(), int64_t(samples.size()), out.data());
  return out;
}

std::vector<float> Fbank::compute(const std::vector<int16_t>& samples) const {
  return compute(std::vector<float>(samples.begin(), samples.end()));
}

const Fbank& default_fbank() {
  static const Fbank fbank;
  return fbank;
}

}  // namespace lintra::data
