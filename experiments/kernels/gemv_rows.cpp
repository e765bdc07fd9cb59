// experiments/kernels/gemv_rows.cpp — how fast do the recurrent engine's batch-1 products
// (simd::gemv_rows_f32 / _bf16, core/cpu/gemv_rows.cpp) stream their weights, from L2, L3 and memory?
// A kernel lab in the llm.c dev/ style, outside the mainline: one thread runs the products of
// `layers` copies of the paper's MNIST layer (d_model 256, d_ff 1024: a 768 × 256 QKV, 256 × 256 out,
// 1024 × 256 and 256 × 1024 feed-forward products, 786,432 weights a layer) one after another, as one
// token of the engine does, and reports multiply-adds per second and weight bytes per second per layer
// count: 1 layer is 3 MB in float32 (L3), 8 layers 25 MB (memory on a 16 MB L3, L3 on a 32 MB one);
// a single 64 × 256 product (64 KB) shows the loop's own rate from L1/L2.
//
// Run: build/experiments/kernels/gemv_rows [TARGET] (AVX3, AVX2, SSE4, …; default the best), under the
// machine lock.
#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "core/host_simd.h"
#include "core/rng.h"
#include "core/simd.h"
#include "core/tensor.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Product {
  int64_t rows, in;
};

// One row of the table: `copies` of a list of products, run one after another as a token runs them.
struct Case {
  std::string name;
  std::vector<Product> products;
  int copies;
};

// The paper's MNIST layer: QKV, out, and the two feed-forward products (786,432 weights).
const std::vector<Product> kLayer = {{768, 256}, {256, 256}, {1024, 256}, {256, 1024}};

template <typename W> struct Weights {
  std::vector<std::vector<W>> w;
  std::vector<std::vector<float>> bias;
};

template <typename W> Weights<W> make_weights(const Case& c, lintra::Generator& gen) {
  Weights<W> out;
  for (int copy = 0; copy < c.copies; ++copy)
    for (const Product& p : c.products) {
      const std::vector<float> f = lintra::Tensor::uniform({p.rows * p.in}, gen, -0.05, 0.05).to_vector<float>();
      std::vector<W> w(f.size());
      for (size_t i = 0; i < f.size(); ++i) {
        if constexpr (std::is_same_v<W, float>) w[i] = f[i];
        else w[i] = lintra::simd::to_bf16(f[i]);
      }
      out.w.push_back(std::move(w));
      out.bias.emplace_back(size_t(p.rows), 0.0f);
    }
  return out;
}

// Seconds per token: the best mean of 10 tokens over at least 0.5 s.
template <typename W> double seconds_per_token(const Case& c, const Weights<W>& weights) {
  std::vector<float> x(1024, 0.01f), y(1024);
  auto token = [&] {
    size_t i = 0;
    for (int copy = 0; copy < c.copies; ++copy)
      for (const Product& p : c.products) {
        if constexpr (std::is_same_v<W, float>)
          lintra::simd::gemv_rows_f32(weights.w[i].data(), weights.bias[i].data(), x.data(), y.data(), 1, p.in,
                                      p.rows, 0, p.rows);
        else
          lintra::simd::gemv_rows_bf16(weights.w[i].data(), weights.bias[i].data(), x.data(), y.data(), 1, p.in,
                                       p.rows, 0, p.rows);
        ++i;
      }
  };
  token();
  double best = 1e30;
  const auto start = Clock::now();
  while (std::chrono::duration<double>(Clock::now() - start).count() < 0.5) {
    const auto t0 = Clock::now();
    for (int r = 0; r < 10; ++r) token();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count() / 10);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) lintra::force_simd_target(argv[1]);
  fmt::print("gemv_rows lab — SIMD target {}, one thread, batch 1\n", lintra::simd_target());
  fmt::print("{:<22} {:>8} {:>8} {:>8} {:>8}\n", "case", "weights", "MB", "GMAC/s", "GB/s");
  std::vector<Case> cases = {{"one 64 x 256 (L1/L2)", {{64, 256}}, 1}};
  for (int layers : {1, 2, 4, 8}) cases.push_back({fmt::format("{} MNIST layer(s)", layers), kLayer, layers});
  lintra::Generator gen(5);
  for (const Case& c : cases) {
    double macs = 0;
    for (const Product& p : c.products) macs += double(p.rows * p.in) * c.copies;
    const double tf = seconds_per_token(c, make_weights<float>(c, gen));
    const double tb = seconds_per_token(c, make_weights<uint16_t>(c, gen));
    for (auto [name, t, bytes] : {std::tuple{"float32", tf, 4.0}, std::tuple{"bf16", tb, 2.0}})
      fmt::print("{:<22} {:>8} {:>8.1f} {:>8.1f} {:>8.1f}\n", c.name, name, macs * bytes / 1e6, macs / t / 1e9,
                 macs * bytes / t / 1e9);
  }
  return 0;
}
