// experiments/kernels/engine_token.cpp — where the time of batch-1 generation on the recurrent engine
// goes, apart: building the engine (packing the weights), the engine's steps alone (a fixed pixel fed
// at every position), and the steps with sampling, as generate_recurrent runs them. Beside
// gemv_team (the token's products alone), it says how far the engine is from its weights' stream.
// The paper's MNIST model (8 layers, 8 heads × 32, d_ff 1024), untrained, causal-linear.
//
// Run: build/experiments/kernels/engine_token [bf16] under the machine lock (GOMP_SPINCOUNT=1000 as
// lintra's main sets it).
#include <fmt/format.h>

#include <chrono>
#include <cstring>

#include "core/threading.h"
#include "nn/inference_scope.h"
#include "nn/losses/mixture_of_logistics.h"
#include "nn/models/image_model.h"
#include "nn/models/image_recurrent_engine.h"

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

}  // namespace

int main(int argc, char** argv) {
  using namespace lintra;
  const bool bf16 = argc > 1 && std::strcmp(argv[1], "bf16") == 0;
  set_num_threads(0);
  nn::TokenTransformerOptions t;
  t.vocab = nn::ImageModel::kLevels;
  t.positional = nn::PositionalMode::concat;
  t.encoder.n_layers = 8;
  t.encoder.n_heads = 8;
  t.encoder.d_model = 256;
  t.encoder.dropout = 0;
  t.encoder.attention = "causal-linear";
  nn::ImageModel model(t, 1, 10);
  nn::InferenceScope scope(model);
  const int64_t L = 784;
  const auto weights = bf16 ? nn::EngineWeights::bf16 : nn::EngineWeights::f32;
  fmt::print("engine_token lab — {} threads, {} weights, {} tokens an image\n", num_threads(),
             nn::engine_weights_name(weights), L - 1);
  fmt::print("{:<34} {:>10}\n", "part (best of 5)", "ms");
  double build = 1e30, steps = 1e30, with_sampling = 1e30;
  Generator gen(7);
  for (int r = 0; r < 5; ++r) {
    auto t0 = Clock::now();
    nn::ImageRecurrentEngine engine(model, 1, L, 0, weights);
    build = std::min(build, since(t0));
    std::vector<float> params(size_t(engine.param_dim()));
    int64_t pixel = 0;
    t0 = Clock::now();
    for (int64_t p = 0; p + 1 < L; ++p) engine.step(&pixel, p, params.data());
    steps = std::min(steps, since(t0));
    t0 = Clock::now();
    for (int64_t p = 0; p + 1 < L; ++p) {
      engine.step(&pixel, p, params.data());
      pixel = nn::sample_mol(Tensor::from_vector(params, {1, engine.param_dim()}), gen, nn::ImageModel::kLevels)
                  .to_vector<int64_t>()[0];
    }
    with_sampling = std::min(with_sampling, since(t0));
  }
  fmt::print("{:<34} {:>10.2f}\n", "build the engine", build * 1e3);
  fmt::print("{:<34} {:>10.2f}  ({:.4f} ms a token)\n", "steps, a fixed pixel", steps * 1e3, steps * 1e3 / double(L - 1));
  fmt::print("{:<34} {:>10.2f}  ({:.4f} ms a token)\n", "steps and sampling", with_sampling * 1e3,
             with_sampling * 1e3 / double(L - 1));
  return 0;
}
