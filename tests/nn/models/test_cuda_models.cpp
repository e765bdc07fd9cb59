// test_cuda_models.cpp — every model trains on the GPU (cuda:0) as on the CPU: from the same weights and
// batch, the loss, its metric sums and every gradient agree to float32 rounding, and so do the losses and
// parameters after SGD steps; recurrent and recompute image generation (with a prefix) and the copy
// model's greedy continuation give the CPU's tokens. Every test skips (GTEST_SKIP) where no GPU is visible
// or the build has no CUDA. test_strict_models.cpp holds the same runs on the strict test device, bit
// for bit; on the GPU the kernels and cuBLAS (no TF32) sum in other orders, so values are compared
// tensor by tensor: max |a − b| ≤ 1e-3 · max(max |a|, 1e-6), which float32 reordering meets by orders of
// magnitude and a wrong kernel (errors of the order of the values) cannot. Dropout masks are the same
// bits on both (one Philox stream), so training runs with dropout on. SGD, not Adam, updates the
// parameters: Adam's first step is lr · sign(g), which turns a rounding difference in a near-zero
// gradient into a whole step.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "nn/models/copy_model.h"
#include "nn/models/image_generation.h"
#include "nn/models/image_model.h"
#include "nn/models/speech_model.h"
#include "tests/nn/models/device_runs.h"
#include "tests/nn/nn_test_util.h"
#include "train/optim/optimizer.h"

namespace lintra::nn {
namespace {

const Device kGpu = Device::cuda(0);

#define SKIP_WITHOUT_GPU() \
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device visible (or a build without CUDA)"

void expect_close(const Tensor& a, const Tensor& b, const std::string& what) {
  ASSERT_EQ(a.shape(), b.shape()) << what;
  ASSERT_EQ(b.device(), kGpu) << what;
  const std::vector<double> va = a.to(DType::f64).to_vector<double>(), vb = b.cpu().to(DType::f64).to_vector<double>();
  double scale = 1e-6, worst = 0;
  for (size_t i = 0; i < va.size(); ++i) {
    scale = std::max(scale, std::fabs(va[i]));
    worst = std::max(worst, std::fabs(va[i] - vb[i]));
  }
  EXPECT_LE(worst, 1e-3 * scale) << what << ": max |cpu − gpu| " << worst << " against max |cpu| " << scale;
}

std::unique_ptr<train::Optimizer> sgd(const Module& m) {
  std::vector<train::NamedParam> params;
  for (const auto& [name, v] : m.named_parameters()) params.push_back({name, v});
  train::OptimizerOptions o;
  o.name = "sgd";
  o.lr = 1e-2;
  o.weight_decay = 0;
  o.max_grad_norm = 0;
  return train::make_optimizer(std::move(params), o);
}

// Two SGD steps of the same model on the CPU and on the GPU from the same batch.
void expect_same_training(Model& cpu, Model& gpu, const ModelBatch& batch, const std::string& name) {
  testing::expect_same_training(cpu, gpu, kGpu, batch, name, expect_close, sgd, /*sums_rtol=*/1e-3);
}

TEST(NnModelsCuda, CopyModelTrainsOnTheGpuAsOnTheCpu) {
  SKIP_WITHOUT_GPU();
  for (const std::string attention : {"causal-linear", "softmax", "reformer"}) {
    TokenTransformerOptions o;
    o.vocab = 11;
    o.encoder = testing::small_encoder(attention, 0.1);
    CopyModel cpu(o, 3), gpu(o, 3);
    expect_same_training(cpu, gpu, testing::token_batch(11, 3, 9, 4), "copy/" + attention);
  }
}

TEST(NnModelsCuda, ImageModelTrainsOnTheGpuAsOnTheCpu) {
  SKIP_WITHOUT_GPU();
  for (const std::string attention : {"causal-linear", "softmax", "reformer"}) {
    TokenTransformerOptions o;
    o.encoder = testing::small_encoder(attention, 0.1);
    ImageModel cpu(o, 5, 3), gpu(o, 5, 3);
    ModelBatch b = testing::token_batch(256, 2, 12, 6);
    b.mask = Tensor();
    expect_same_training(cpu, gpu, b, "image/" + attention);
  }
}

TEST(NnModelsCuda, SpeechModelsTrainOnTheGpuAsOnTheCpu) {
  SKIP_WITHOUT_GPU();
  for (const std::string attention : {"softmax", "linear", "reformer"}) {
    SpeechTransformerOptions o;
    o.input_dim = 6;
    o.n_phones = 4;
    o.encoder = testing::small_encoder(attention, 0.1);
    SpeechTransformerModel cpu(o, 7), gpu(o, 7);
    expect_same_training(cpu, gpu, testing::speech_batch(), "speech/" + attention);
  }
  BiLstmOptions l;
  l.input_dim = 6;
  l.hidden_size = 8;
  l.num_layers = 2;
  l.n_phones = 4;
  BiLstmModel cpu(l, 8), gpu(l, 8);
  expect_same_training(cpu, gpu, testing::speech_batch(), "speech/bilstm");
}

TEST(NnModelsCuda, ImageGenerationOnTheGpuEqualsTheCpu) {
  SKIP_WITHOUT_GPU();
  for (const std::string attention : {"causal-linear", "softmax"}) {
    TokenTransformerOptions o;
    o.encoder = testing::small_encoder(attention, 0.0);
    ImageModel cpu(o, 9, 2), gpu(o, 9, 2);
    gpu.to(kGpu);
    const Tensor prefix = Tensor::from_vector(std::vector<int64_t>{0, 10, 200, 0, 30, 40}, {2, 3});
    Generator g1(11), g2(11);
    const Tensor a = generate_recurrent(cpu, 2, 10, g1, prefix, RecurrentBackend::modules);
    const Tensor b = generate_recurrent(gpu, 2, 10, g2, prefix);  // no engine off the CPU: the modules
    EXPECT_EQ(b.device(), kGpu);
    EXPECT_EQ(a.to_vector<int64_t>(), b.cpu().to_vector<int64_t>()) << attention << " recurrent";
    Generator g3(12), g4(12);
    EXPECT_EQ(generate_recompute(cpu, 2, 10, g3, prefix).to_vector<int64_t>(),
              generate_recompute(gpu, 2, 10, g4, prefix).cpu().to_vector<int64_t>())
        << attention << " recompute";
  }
}

TEST(NnModelsCuda, GreedyCopyOnTheGpuEqualsTheCpu) {
  SKIP_WITHOUT_GPU();
  TokenTransformerOptions o;
  o.vocab = 11;
  o.encoder = testing::small_encoder("causal-linear", 0.1);
  CopyModel cpu(o, 13), gpu(o, 13);
  gpu.to(kGpu);
  const Tensor prefix = Tensor::from_vector(std::vector<int64_t>{3, 1, 4, 0, 5, 9, 2, 0}, {2, 4});
  EXPECT_EQ(cpu.greedy(prefix, 4).to_vector<int64_t>(), gpu.greedy(prefix.to(kGpu), 4).cpu().to_vector<int64_t>());
}

}  // namespace
}  // namespace lintra::nn
