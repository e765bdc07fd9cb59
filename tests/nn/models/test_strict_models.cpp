// test_strict_models.cpp — every model on the strict test device (core/device.h) computes what it computes
// on the CPU, bit for bit: the loss and its metric sums, every gradient, and the parameters after Adam
// steps (forward, backward, optimizer update); recurrent and recompute image generation (with and
// without a prefix) and the copy model's greedy continuation give the CPU's tokens. The strict device
// refuses host reads of its memory and ops mixing it with the CPU, so these tests fail on any host
// loop over tensor data, or tensor made on the CPU, left above the kernels of the models.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "nn/models/copy_model.h"
#include "nn/models/image_generation.h"
#include "nn/models/image_model.h"
#include "nn/models/speech_model.h"
#include "tests/nn/models/device_runs.h"
#include "tests/nn/models/plain_adam.h"
#include "tests/nn/nn_test_util.h"

namespace lintra::nn {
namespace {

const Device kStrict = Device::strict();

// Equal element for element (NaN where NaN), after copying b to the host.
void expect_bitwise(const Tensor& a, const Tensor& b, const std::string& what) {
  ASSERT_EQ(a.shape(), b.shape()) << what;
  const std::vector<double> va = a.to(DType::f64).to_vector<double>(), vb = b.cpu().to(DType::f64).to_vector<double>();
  for (size_t i = 0; i < va.size(); ++i)
    ASSERT_TRUE(va[i] == vb[i] || (std::isnan(va[i]) && std::isnan(vb[i])))
        << what << "[" << i << "]: " << va[i] << " on the CPU, " << vb[i] << " on strict";
}

// Two Adam steps of the same model on the CPU and on the strict device, from the same batch; the loss,
// metrics, gradients and parameters must agree exactly.
void expect_same_training(Model& cpu, Model& strict, const ModelBatch& batch, const std::string& name) {
  testing::expect_same_training(cpu, strict, kStrict, batch, name, expect_bitwise,
                                [](const Module& m) { return testing::plain_adam(m, 1e-2); }, /*sums_rtol=*/0);
}

TEST(NnModelsStrict, CopyModelTrainsOnStrictAsOnCpu) {
  for (const std::string attention : {"causal-linear", "softmax", "reformer"}) {
    TokenTransformerOptions o;
    o.vocab = 11;
    o.encoder = testing::small_encoder(attention, 0.1);  // dropout masks must agree too
    CopyModel cpu(o, 3), strict(o, 3);
    expect_same_training(cpu, strict, testing::token_batch(11, 3, 9, 4), "copy/" + attention);
  }
}

TEST(NnModelsStrict, ImageModelTrainsOnStrictAsOnCpu) {
  for (const std::string attention : {"causal-linear", "softmax"}) {
    TokenTransformerOptions o;
    o.encoder = testing::small_encoder(attention, 0.0);
    ImageModel cpu(o, 5, 3), strict(o, 5, 3);
    ModelBatch b = testing::token_batch(256, 2, 12, 6);
    b.mask = Tensor();
    expect_same_training(cpu, strict, b, "image/" + attention);
  }
}

TEST(NnModelsStrict, SpeechModelsTrainOnStrictAsOnCpu) {
  for (const std::string attention : {"softmax", "linear", "reformer"}) {
    SpeechTransformerOptions o;
    o.input_dim = 6;
    o.n_phones = 4;
    o.encoder = testing::small_encoder(attention, 0.1);
    SpeechTransformerModel cpu(o, 7), strict(o, 7);
    expect_same_training(cpu, strict, testing::speech_batch(), "speech/" + attention);
  }
  BiLstmOptions l;
  l.input_dim = 6;
  l.hidden_size = 8;
  l.num_layers = 2;
  l.n_phones = 4;
  BiLstmModel cpu(l, 8), strict(l, 8);
  expect_same_training(cpu, strict, testing::speech_batch(), "speech/bilstm");
}

TEST(NnModelsStrict, ImageGenerationOnStrictEqualsCpu) {
  for (const std::string attention : {"causal-linear", "softmax"}) {
    TokenTransformerOptions o;
    o.encoder = testing::small_encoder(attention, 0.0);
    ImageModel cpu(o, 9, 2), strict(o, 9, 2);
    strict.to(kStrict);
    const Tensor prefix = Tensor::from_vector(std::vector<int64_t>{0, 10, 200, 0, 30, 40}, {2, 3});
    for (const Tensor& p : {Tensor(), prefix}) {
      Generator g1(11), g2(11);
      const Tensor a = generate_recurrent(cpu, 2, 10, g1, p, RecurrentBackend::modules);
      const Tensor b = generate_recurrent(strict, 2, 10, g2, p);  // no engine off the CPU: the modules
      EXPECT_EQ(b.device(), kStrict);
      EXPECT_EQ(a.to_vector<int64_t>(), b.cpu().to_vector<int64_t>()) << attention << " recurrent";
      Generator g3(12), g4(12);
      EXPECT_EQ(generate_recompute(cpu, 2, 10, g3, p).to_vector<int64_t>(),
                generate_recompute(strict, 2, 10, g4, p).cpu().to_vector<int64_t>())
          << attention << " recompute";
    }
  }
}

TEST(NnModelsStrict, GreedyCopyOnStrictEqualsCpu) {
  TokenTransformerOptions o;
  o.vocab = 11;
  o.encoder = testing::small_encoder("causal-linear", 0.1);
  CopyModel cpu(o, 13), strict(o, 13);
  strict.to(kStrict);
  const Tensor prefix = Tensor::from_vector(std::vector<int64_t>{3, 1, 4, 0, 5, 9, 2, 0}, {2, 4});
  const Tensor a = cpu.greedy(prefix, 4);
  const Tensor b = strict.greedy(prefix.to(kStrict), 4);
  EXPECT_EQ(a.shape(), Shape({2, 4}));
  EXPECT_EQ(a.to_vector<int64_t>(), b.cpu().to_vector<int64_t>());
  EXPECT_TRUE(cpu.is_training());  // the mode is restored
}

TEST(NnModelsStrict, ModelsRefuseBatchesOnAnotherDevice) {
  TokenTransformerOptions o;
  o.vocab = 11;
  o.encoder = testing::small_encoder("causal-linear", 0.0);
  CopyModel m(o, 1);
  m.to(kStrict);
  const std::string msg = testing::error_of([&] { m.loss(testing::token_batch(11, 2, 5, 1)); });
  EXPECT_HAS(msg, "different devices");
  EXPECT_HAS(msg, "strict:0");
}

}  // namespace
}  // namespace lintra::nn
