// experiments/kernels/gemv_packed.cpp — how fast do the recurrent engine's batch-1 products
// (simd::gemv_packed, core/cpu/gemv_packed.cpp) stream their weights, from L2, L3 and memory? Session
// 18 ran it beside the row-major dot products the packed layout replaced (experiments/kernels/README.md).
// A kernel lab in the llm.c dev/ style, outside the mainline: one thread runs the products of
// `layers` copies of the paper's MNIST layer (d_model 256, d_ff 1024: a 768 × 256 QKV, 256 × 256 out,
// 1024 × 256 and 256 × 1024 feed-forward products, 786,432 weights a layer) one after another, as one
// token of the engine does, and reports multiply-adds per second and weight bytes per second per layer
// count: 1 layer is 3 MB in float32 (L3), 8 layers 25 MB (memory on a 16 MB L3, L3 on a 32 MB one);
// a single 64 × 256 product (64 KB) shows the loop's own rate from L1/L2.
//
// Run: build/experiments/kernels/gemv_packed [TARGET] (AVX3, AVX2, SSE4, …; default the best), under the
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

// Every product of a case packed in float32 and in bf16.
struct Weights {
  std::vector<lintra::simd::PackedRows> packed_f32, packed_bf16;
  std::vector<std::vector<float>> bias;
};

Weights make_weights(const Case& c, lintra::Generator& gen) {
  Weights out;
  for (int copy = 0; copy < c.copies; ++copy)
    for (const Product& p : c.products) {
      const std::vector<float> f = lintra::Tensor::uniform({p.rows * p.in}, gen, -0.05, 0.05).to_vector<float>();
      out.packed_f32.push_back(lintra::simd::pack_rows_f32(f.data(), p.rows, p.in));
      out.packed_bf16.push_back(lintra::simd::pack_rows_bf16(f.data(), p.rows, p.in));
      out.bias.emplace_back(size_t(p.rows), 0.0f);
    }
  return out;
}

enum class Form { packed_f32, packed_bf16 };

// Seconds per token: the best mean of 10 tokens over at least 0.5 s.
double seconds_per_token(const Case& c, const Weights& w, Form form) {
  std::vector<float> x(1024, 0.01f), y(1024);
  auto token = [&] {
    size_t i = 0;
    for (int copy = 0; copy < c.copies; ++copy)
      for (const Product& p : c.products) {
        const float* bias = w.bias[i].data();
        switch (form) {
          case Form::packed_f32: lintra::simd::gemv_packed(w.packed_f32[i], bias, x.data(), y.data(), 1, 0, p.rows); break;
          case Form::packed_bf16: lintra::simd::gemv_packed(w.packed_bf16[i], bias, x.data(), y.data(), 1, 0, p.rows); break;
        }
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
  fmt::print("gemv_packed lab — SIMD target {}, one thread, batch 1\n", lintra::simd_target());
  fmt::print("{:<22} {:>11} {:>8} {:>8} {:>8}\n", "case", "weights", "MB", "GMAC/s", "GB/s");
  std::vector<Case> cases = {{"one 64 x 256 (L1/L2)", {{64, 256}}, 1}};
  for (int layers : {1, 2, 4, 8}) cases.push_back({fmt::format("{} MNIST layer(s)", layers), kLayer, layers});
  lintra::Generator gen(5);
  for (const Case& c : cases) {
    double macs = 0;
    for (const Product& p : c.products) macs += double(p.rows * p.in) * c.copies;
    const Weights w = make_weights(c, gen);
    for (auto [name, form, bytes] :
         {std::tuple{"float32", Form::packed_f32, 4.0}, std::tuple{"bf16", Form::packed_bf16, 2.0}}) {
      const double t = seconds_per_token(c, w, form);
      fmt::print("{:<22} {:>11} {:>8.1f} {:>8.1f} {:>8.1f}\n", c.name, name, macs * bytes / 1e6, macs / t / 1e9,
                 macs * bytes / t / 1e9);
    }
  }
  return 0;
}
