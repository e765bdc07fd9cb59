// test_fbank.cpp — the log-mel filterbank: FFT against a naive DFT, frame counts, a sine's energy in
// the band nearest its frequency, DC removal, the log floor.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "core/rng.h"
#include "data/speech/fbank.h"
#include "tests/data/test_util.h"

namespace lintra::data {
namespace {

using ::testing::HasSubstr;
using testing::error_of;

std::vector<float> sine(double hz, int64_t n, double amplitude = 10000.0) {
  std::vector<float> x(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) x[size_t(i)] = float(amplitude * std::sin(2.0 * std::numbers::pi * hz * double(i) / 16000.0));
  return x;
}

TEST(DataFbank, FftMatchesNaiveDft) {
  Generator g(7);
  for (size_t n : {1, 2, 4, 8, 64, 512}) {
    std::vector<std::complex<double>> x(n);
    for (auto& v : x) v = {g.next_double() - 0.5, g.next_double() - 0.5};
    std::vector<std::complex<double>> expected(n);
    for (size_t k = 0; k < n; ++k)
      for (size_t t = 0; t < n; ++t)
        expected[k] += x[t] * std::polar(1.0, -2.0 * std::numbers::pi * double(k * t % n) / double(n));
    std::vector<std::complex<double>> got = x;
    fft_inplace(got);
    for (size_t k = 0; k < n; ++k) {
      // Rounding grows like log2(n) · eps · |x|₁; |x|₁ ≤ n here.
      EXPECT_NEAR(got[k].real(), expected[k].real(), 1e-12 * double(n)) << "n=" << n << " k=" << k;
      EXPECT_NEAR(got[k].imag(), expected[k].imag(), 1e-12 * double(n)) << "n=" << n << " k=" << k;
    }
  }
  std::vector<std::complex<double>> bad(12);
  EXPECT_THAT(error_of([&] { fft_inplace(bad); }), HasSubstr("not a power of two"));
}

TEST(DataFbank, FrameCountsFollowTheFormula) {
  const Fbank& fb = default_fbank();
  for (int64_t n : {400, 401, 559, 560, 561, 1000, 16000, 16001, 12345}) {
    const int64_t expected = 1 + (n - 400) / 160;
    EXPECT_EQ(fbank_num_frames(n), expected) << n;
    EXPECT_EQ(int64_t(fb.compute(sine(440, n)).size()), expected * kFbankDim) << n;
  }
  EXPECT_THAT(error_of([] { fbank_num_frames(399); }), HasSubstr("shorter than one 25 ms analysis window"));
  EXPECT_THAT(error_of([] { fbank_num_frames(0); }), HasSubstr("0 samples"));
}

TEST(DataFbank, FiltersSpanTwentyHertzToEightKilohertz) {
  const auto& c = default_fbank().center_hz();
  ASSERT_EQ(int64_t(c.size()), kFbankDim);
  EXPECT_GT(c.front(), 20.0);
  EXPECT_LT(c.back(), 8000.0);
  for (size_t j = 1; j < c.size(); ++j) EXPECT_GT(c[j], c[j - 1]);
  EXPECT_NEAR(hz_to_mel(1000.0), 1127.0 * std::log(1.0 + 1000.0 / 700.0), 1e-9);
  EXPECT_NEAR(mel_to_hz(hz_to_mel(3210.0)), 3210.0, 1e-9);
}

TEST(DataFbank, SineEnergyPeaksInTheNearestBand) {
  const Fbank& fb = default_fbank();
  const auto& centres = fb.center_hz();
  for (double hz : {300.0, 1000.0, 3000.0, 6000.0}) {
    const int64_t n = 16000;
    std::vector<float> f = fb.compute(sine(hz, n));
    const int64_t frames = fbank_num_frames(n);
    std::vector<double> mean(size_t(kFbankDim), 0.0);
    for (int64_t t = 0; t < frames; ++t)
      for (int64_t j = 0; j < kFbankDim; ++j) mean[size_t(j)] += f[size_t(t * kFbankDim + j)] / double(frames);
    const size_t loudest = size_t(std::max_element(mean.begin(), mean.end()) - mean.begin());
    size_t nearest = 0;
    for (size_t j = 1; j < centres.size(); ++j)
      if (std::abs(centres[j] - hz) < std::abs(centres[nearest] - hz)) nearest = j;
    EXPECT_EQ(loudest, nearest) << hz << " Hz: loudest band centre " << centres[loudest] << " Hz, nearest "
                                << centres[nearest] << " Hz";
  }
}

TEST(DataFbank, DcOffsetIsRemovedAndSilenceHitsTheLogFloor) {
  const Fbank& fb = default_fbank();
  std::vector<float> x = sine(700.0, 4000, 3000.0), shifted = x;
  for (float& v : shifted) v += 1000.0f;
  std::vector<float> a = fb.compute(x), b = fb.compute(shifted);
  for (size_t k = 0; k < a.size(); ++k) EXPECT_NEAR(a[k], b[k], 1e-3) << k;

  std::vector<float> silence = fb.compute(std::vector<int16_t>(800, 0));
  for (float v : silence) EXPECT_FLOAT_EQ(v, float(std::log(kFbankLogFloor)));
}

}  // namespace
}  // namespace lintra::data
