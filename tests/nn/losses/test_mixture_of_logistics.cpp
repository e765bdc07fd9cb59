// test_mixture_of_logistics.cpp — the discretized logistic mixture loss and sampler.
// Invariants: the loss equals a plain per-pixel computation of the paper's formula (double loops,
// std::log/std::exp), in every branch (pixel 0, pixel 255, interior, the bin-centre fallback when
// the CDF difference is ≤ 1e-5, the −7 log-scale clamp); its reductions agree; float64 gradients
// match central differences; samples lie in 0 … 255, follow a sharp single component to the
// expected level, follow the mixture weights, and are reproducible from the generator; bad
// pixels and shapes throw clear errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "nn/losses/mixture_of_logistics.h"
#include "tests/nn/nn_test_util.h"

namespace lintra::nn {
namespace {

using lintra::testing::error_of;

// The paper's formula for one sub-pixel, written out plainly (utils.py discretized_mix_logistic_loss
// with num_classes = 256, log_scale_min = −7), in double.
double reference_nll(const std::vector<double>& p, int64_t K, int64_t pixel) {
  const double x = double(pixel) / 127.5 - 1.0;
  const double h = 1.0 / 255.0;
  auto sigmoid = [](double a) { return 1.0 / (1.0 + std::exp(-a)); };
  auto softplus = [](double a) { return a > 30 ? a : std::log1p(std::exp(a)); };
  double max_logit = -INFINITY;
  for (int64_t k = 0; k < K; ++k) max_logit = std::max(max_logit, p[size_t(k)]);
  double z = 0;
  for (int64_t k = 0; k < K; ++k) z += std::exp(p[size_t(k)] - max_logit);
  const double log_z = max_logit + std::log(z);
  std::vector<double> terms;
  for (int64_t k = 0; k < K; ++k) {
    const double mu = p[size_t(K + k)];
    const double log_s = std::max(p[size_t(2 * K + k)], -7.0);
    const double inv_s = std::exp(-log_s);
    const double plus_in = inv_s * (x - mu + h), min_in = inv_s * (x - mu - h), mid_in = inv_s * (x - mu);
    double log_p;
    if (x < -0.999) {
      log_p = std::log(sigmoid(plus_in));
    } else if (x > 0.999) {
      log_p = std::log(1.0 - sigmoid(min_in));
    } else if (sigmoid(plus_in) - sigmoid(min_in) > 1e-5) {
      log_p = std::log(sigmoid(plus_in) - sigmoid(min_in));
    } else {
      log_p = mid_in - log_s - 2.0 * softplus(mid_in) - std::log(127.5);
    }
    terms.push_back(log_p + p[size_t(k)] - log_z);
  }
  const double m = *std::max_element(terms.begin(), terms.end());
  double s = 0;
  for (double t : terms) s += std::exp(t - m);
  return -(m + std::log(s));
}

// Rows of mixture parameters covering every branch, K = 3.
constexpr int64_t kK = 3;
struct Case {
  std::vector<double> params;  // logits, means, raw log-scales
  int64_t pixel;
  const char* what;
};
std::vector<Case> branch_cases() {
  return {
      {{0.1, -0.3, 0.5, -0.2, 0.1, 0.6, -2.0, -1.5, -3.0}, 0, "first bin (x = -1)"},
      {{0.1, -0.3, 0.5, 0.7, -0.4, 0.95, -2.5, -1.0, -4.0}, 255, "last bin (x = 1)"},
      {{1.0, 0.0, -1.0, 0.02, -0.5, 0.3, -3.0, -2.0, -1.0}, 130, "interior"},
      {{0.0, 0.2, -0.2, -0.9, 0.9, 0.0, -0.5, 0.2, 0.8}, 3, "near the first bin, wide components"},
      // A tiny scale (log s = −6.5) 0.05 away from the pixel: σ differences vanish → bin-centre pdf.
      {{0.3, -0.1, 0.2, 0.05, 0.8, -0.8, -6.5, -6.5, -6.5}, 128, "fallback: CDF difference <= 1e-5"},
      // Raw log-scales below −7 are clamped; components both near and far from the pixel.
      {{-0.4, 0.6, 0.0, -0.6, -0.59, 0.1, -9.0, -7.5, -12.0}, 51, "log-scale clamp at -7"},
  };
}

TEST(NnMixtureOfLogistics, MatchesPlainPerPixelComputationInEveryBranch) {
  const auto cases = branch_cases();
  std::vector<double> flat;
  std::vector<int64_t> pixels;
  for (const auto& c : cases) {
    flat.insert(flat.end(), c.params.begin(), c.params.end());
    pixels.push_back(c.pixel);
  }
  const int64_t n = int64_t(cases.size());
  for (DType dt : {DType::f64, DType::f32}) {
    Var params(Tensor::from_vector(flat, {n, 3 * kK}).to(dt));
    Tensor target = Tensor::from_vector(pixels, {n});
    std::vector<double> got = mixture_of_logistics_nll(params, target, Reduction::none).data().to_vector<double>();
    ASSERT_EQ(got.size(), size_t(n));
    // float32: σ differences of order 1e-3 lose ~1e-4 relative precision to cancellation.
    const double tol = dt == DType::f64 ? 1e-10 : 2e-4;
    for (int64_t i = 0; i < n; ++i) {
      const double want = reference_nll(cases[size_t(i)].params, kK, cases[size_t(i)].pixel);
      EXPECT_NEAR(got[size_t(i)], want, tol * std::max(1.0, std::abs(want))) << cases[size_t(i)].what << " " << dtype_name(dt);
    }
  }
}

// The fallback case really takes the fallback: the CDF difference is below 1e-5 for every component,
// and the value is far from log(1e-12) (what a clamped CDF difference would give).
TEST(NnMixtureOfLogistics, FallbackBranchIsTaken) {
  const Case c = branch_cases()[4];
  const double x = double(c.pixel) / 127.5 - 1.0;
  for (int64_t k = 0; k < kK; ++k) {
    const double inv_s = std::exp(6.5), mu = c.params[size_t(kK + k)];
    const double d = 1 / (1 + std::exp(-inv_s * (x - mu + 1 / 255.0))) - 1 / (1 + std::exp(-inv_s * (x - mu - 1 / 255.0)));
    EXPECT_LE(d, 1e-5) << k;
  }
  Var params(Tensor::from_vector(c.params, {1, 3 * kK}).to(DType::f64));
  const double nll = mixture_of_logistics_nll(params, Tensor::from_vector(std::vector<int64_t>{c.pixel}, {1})).item();
  EXPECT_NEAR(nll, reference_nll(c.params, kK, c.pixel), 1e-9);
  EXPECT_GT(nll, 20.0);  // very improbable (the pixel is ~30 scales from every mean), yet finite
  EXPECT_TRUE(std::isfinite(nll));
}

// A mixture is a distribution over the 256 levels: the bin masses telescope to 1. Bins far in a
// component's tail (CDF difference ≤ 1e-5) use the bin-centre density instead of the exact mass,
// which moves the total by ~1e-8 here (observed 2.2e-8), hence the 1e-6 tolerance.
TEST(NnMixtureOfLogistics, ProbabilitiesOverAllLevelsSumToOne) {
  std::vector<double> row = {0.2, -0.5, 0.9, -0.3, 0.2, 0.7, -2.0, -3.0, -1.5};
  std::vector<double> flat;
  std::vector<int64_t> pixels;
  for (int64_t v = 0; v < 256; ++v) {
    flat.insert(flat.end(), row.begin(), row.end());
    pixels.push_back(v);
  }
  Var params(Tensor::from_vector(flat, {256, 3 * kK}));
  std::vector<double> nll =
      mixture_of_logistics_nll(params, Tensor::from_vector(pixels, {256}), Reduction::none).data().to_vector<double>();
  double total = 0;
  for (double v : nll) total += std::exp(-v);
  EXPECT_NEAR(total, 1.0, 1e-6);
}

TEST(NnMixtureOfLogistics, ReductionsAndBatchShapes) {
  Generator gen(5);
  Tensor params = Tensor::uniform({2, 7, 30}, gen, -1, 1, DType::f64);
  Tensor target = ops::randint({2, 7}, 0, 256, gen);
  Var none = mixture_of_logistics_nll(Var(params), target, Reduction::none);
  EXPECT_EQ(none.shape(), (Shape{2, 7}));
  const double s = ops::sum(none.data()).item();
  EXPECT_NEAR(mixture_of_logistics_nll(Var(params), target, Reduction::sum).item(), s, 1e-9);
  EXPECT_NEAR(mixture_of_logistics_nll(Var(params), target).item(), s / 14, 1e-9);
  // Each row equals the plain computation.
  std::vector<double> p = params.to_vector<double>();
  std::vector<int64_t> t = target.to_vector<int64_t>();
  std::vector<double> got = none.data().to_vector<double>();
  for (size_t i = 0; i < 14; ++i)
    EXPECT_NEAR(got[i], reference_nll(std::vector<double>(p.begin() + i * 30, p.begin() + (i + 1) * 30), 10, t[i]),
                1e-10);
}

// float64 central differences, away from the branch switches (|x| = 0.999, CDF difference = 1e-5)
// and the clamp at −7 where the loss is not differentiable.
TEST(NnMixtureOfLogistics, Gradcheck) {
  const auto cases = branch_cases();
  std::vector<double> flat;
  std::vector<int64_t> pixels;
  for (const auto& c : cases) {
    flat.insert(flat.end(), c.params.begin(), c.params.end());
    pixels.push_back(c.pixel);
  }
  Tensor target = Tensor::from_vector(pixels, {int64_t(cases.size())});
  Tensor params = Tensor::from_vector(flat, {int64_t(cases.size()), 3 * kK});
  for (Reduction r : {Reduction::mean, Reduction::none}) {
    GradcheckResult res = gradcheck(
        [&](const std::vector<Var>& in) { return mixture_of_logistics_nll(in[0], target, r); }, {params});
    EXPECT_TRUE(res.ok) << res.message;
  }
  // Random parameters at a batch of random pixels (interior and edges).
  Generator gen(11);
  Tensor p2 = Tensor::uniform({2, 4, 3 * 2}, gen, -1.5, 1.5, DType::f64);
  Tensor t2 = Tensor::from_vector(std::vector<int64_t>{0, 255, 17, 128, 200, 1, 254, 90}, {2, 4});
  GradcheckResult res =
      gradcheck([&](const std::vector<Var>& in) { return mixture_of_logistics_nll(in[0], t2); }, {p2});
  EXPECT_TRUE(res.ok) << res.message;
}

// Below the clamp the log-scale gets no gradient; everything else still does.
TEST(NnMixtureOfLogistics, ClampedLogScaleHasZeroGradient) {
  const Case c = branch_cases()[5];
  Var params(Tensor::from_vector(c.params, {1, 3 * kK}).to(DType::f64), true);
  mixture_of_logistics_nll(params, Tensor::from_vector(std::vector<int64_t>{c.pixel}, {1})).backward();
  std::vector<double> g = params.grad().to_vector<double>();
  for (int64_t k = 0; k < kK; ++k) EXPECT_EQ(g[size_t(2 * kK + k)], 0.0) << k;
  EXPECT_NE(g[size_t(kK + 1)], 0.0);  // the mean of the component nearest the pixel
}

TEST(NnMixtureOfLogistics, SamplesAreLevelsAndReproducible) {
  Generator init(3);
  Tensor params = Tensor::uniform({64, 10, 30}, init, -3, 3);
  Generator a(42), b(42);
  Tensor s1 = sample_mol(params, a);
  Tensor s2 = sample_mol(params, b);
  EXPECT_EQ(s1.shape(), (Shape{64, 10}));
  EXPECT_EQ(s1.dtype(), DType::i64);
  EXPECT_EQ(s1.to_vector<int64_t>(), s2.to_vector<int64_t>());
  EXPECT_EQ(a.state(), b.state());
  for (int64_t v : s1.to_vector<int64_t>()) {
    EXPECT_GE(v, 0);
    EXPECT_LE(v, 255);
  }
  // The next draw differs (the generator advanced).
  EXPECT_NE(sample_mol(params, a).to_vector<int64_t>(), s1.to_vector<int64_t>());
}

// One component carries all the weight and has a tiny scale (elu(−12) + 1.0001 ≈ 1e-4): every sample
// is the level of its mean, round((μ + 1) · 127.5). Means at ±1 and beyond clamp to 0 and 255.
TEST(NnMixtureOfLogistics, SharpSingleComponentGivesItsLevel) {
  const int64_t K = 4;
  const std::vector<std::pair<double, int64_t>> means = {
      {-1.0, 0}, {1.0, 255}, {0.01, 129}, {-0.5, 64}, {0.3, 166}, {-3.0, 0}, {2.5, 255}};
  std::vector<float> flat;
  for (auto [mu, _] : means) {
    for (int64_t k = 0; k < K; ++k) flat.push_back(k == 2 ? 50.0f : -50.0f);     // logits: component 2
    for (int64_t k = 0; k < K; ++k) flat.push_back(k == 2 ? float(mu) : 0.77f);  // means
    for (int64_t k = 0; k < K; ++k) flat.push_back(-12.0f);                      // raw scales
  }
  Tensor params = Tensor::from_vector(flat, {int64_t(means.size()), 3 * K});
  Generator gen(9);
  for (int rep = 0; rep < 20; ++rep) {
    std::vector<int64_t> s = sample_mol(params, gen).to_vector<int64_t>();
    for (size_t i = 0; i < means.size(); ++i) EXPECT_EQ(s[i], means[i].second) << "mean " << means[i].first;
  }
  // (−0.5 + 1)·127.5 = 63.75 → 64; (0.3 + 1)·127.5 = 165.75 → 166; 1.01·127.5 = 128.775 → 129. Each is
  // ≥ 0.22 levels from a rounding edge, i.e. |logit(u)| > 16 would be needed to move it (u < 1e-7).
}

// Component choice follows softmax(logits): two sharp components at levels 0 and 255 with weights
// 0.25 / 0.75; the frequency of 255 over 20,000 samples is 0.75 ± 4σ (σ ≈ 0.003).
TEST(NnMixtureOfLogistics, SamplerFollowsMixtureWeights) {
  const int64_t n = 20000;
  std::vector<double> row = {std::log(0.25), std::log(0.75), -1.0, 1.0, -12.0, -12.0};
  std::vector<double> flat;
  for (int64_t i = 0; i < n; ++i) flat.insert(flat.end(), row.begin(), row.end());
  Generator gen(1234);
  std::vector<int64_t> s = sample_mol(Tensor::from_vector(flat, {n, 6}), gen).to_vector<int64_t>();
  int64_t high = 0;
  for (int64_t v : s) {
    ASSERT_TRUE(v == 0 || v == 255) << v;
    high += v == 255;
  }
  EXPECT_NEAR(double(high) / n, 0.75, 4 * std::sqrt(0.75 * 0.25 / n));
}

// The logistic's spread uses elu(raw) + 1.0001: a single component at 0 with raw = 0 (s ≈ 1) sampled
// many times has P(|x| ≤ 0.5) = 2σ(0.5/s) − 1 ≈ 0.2449 in the [−1, 1] scale.
TEST(NnMixtureOfLogistics, SamplerUsesEluPlusOneScale) {
  const int64_t n = 20000;
  std::vector<double> flat;
  for (int64_t i = 0; i < n; ++i) flat.insert(flat.end(), {0.0, 0.0, 0.0});
  Generator gen(77);
  std::vector<int64_t> s = sample_mol(Tensor::from_vector(flat, {n, 3}), gen).to_vector<int64_t>();
  int64_t inside = 0;
  for (int64_t v : s) inside += std::abs(double(v) / 127.5 - 1.0) <= 0.5 + 1e-9;
  const double s_scale = 1.0001;
  const double p = 2.0 / (1.0 + std::exp(-0.5 / s_scale)) - 1.0;
  // Rounding to levels shifts the interval edge by at most half a level (0.004): well inside 4σ.
  EXPECT_NEAR(double(inside) / n, p, 4 * std::sqrt(p * (1 - p) / n) + 0.004);
}

TEST(NnMixtureOfLogistics, Errors) {
  Var params(Tensor::zeros({2, 30}));
  EXPECT_HAS(error_of([&] {
               mixture_of_logistics_nll(params, Tensor::from_vector(std::vector<int64_t>{3, 300}, {2}));
             }),
             "pixel value 300 at flat index 1 is outside [0, 255]");
  EXPECT_HAS(error_of([&] {
               mixture_of_logistics_nll(params, Tensor::from_vector(std::vector<int64_t>{-1, 3}, {2}));
             }),
             "pixel value -1");
  EXPECT_HAS(error_of([&] { mixture_of_logistics_nll(params, Tensor::zeros({3}, DType::i64)); }),
             "target must have the parameters' shape without the last dim");
  EXPECT_HAS(error_of([&] { mixture_of_logistics_nll(params, Tensor::zeros({2}, DType::f32)); }), "int64");
  EXPECT_HAS(error_of([&] { mixture_of_logistics_nll(Var(Tensor::zeros({2, 31})), Tensor::zeros({2}, DType::i64)); }),
             "must be 3K");
  Generator g(1);
  EXPECT_HAS(error_of([&] { sample_mol(Tensor::zeros({2, 29}), g); }), "must be 3K");
  EXPECT_HAS(error_of([&] { sample_mol(Tensor::zeros({2, 30}, DType::i64), g); }), "float32 or float64");
  Tensor nan = Tensor::full({1, 3}, std::numeric_limits<double>::quiet_NaN());
  EXPECT_HAS(error_of([&] { sample_mol(nan, g); }), "non-finite");
}

}  // namespace
}  // namespace lintra::nn
