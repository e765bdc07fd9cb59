// test_on_device.cpp — every model computes on another device what it computes on the CPU: the loss and
// its metric sums, every gradient and the parameters after two updates (forward, backward, optimizer);
// recurrent and recompute image generation (with and without a prefix) and the copy model's greedy
// continuation give the CPU's tokens.
//   Strict (the strict test device, core/device.h): bit for bit, with Adam. The device refuses host reads
//     of its memory and ops mixing it with the CPU, so these fail on any host loop over tensor data, or
//     tensor made on the CPU, left above the kernels of the models.
//   Cuda (cuda:0; skipped where no GPU is visible or the build has no CUDA): the kernels and cuBLAS (no
//     TF32) sum in other orders, so values agree tensor by tensor to max |a − b| ≤ 1e-3 · max(max |a|,
//     1e-6), which float32 reordering meets by orders of magnitude and a wrong kernel (errors of the order
//     of the values) cannot; metric sums to 1e-3 relative. SGD, not Adam: Adam's first step is lr ·
//     sign(g), which turns a rounding difference in a near-zero gradient into a whole step.
// Dropout masks are the same bits on every device (one Philox stream), so training runs with dropout on.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "nn/models/copy_model.h"
#include "nn/models/image_generation.h"
#include "nn/models/image_model.h"
#include "nn/models/speech_model.h"
#include "tests/nn/models/plain_adam.h"
#include "tests/nn/nn_test_util.h"

namespace lintra::nn {
namespace {

const Device kStrict = Device::strict();

using CompareTensors = std::function<void(const Tensor& cpu, const Tensor& other, const std::string& what)>;
using MakeOptimizer = std::function<std::unique_ptr<train::Optimizer>(const Module&)>;

// Equal element for element (NaN where NaN), after copying b to the host.
void expect_bitwise(const Tensor& a, const Tensor& b, const std::string& what) {
  ASSERT_EQ(a.shape(), b.shape()) << what;
  const std::vector<double> va = a.to(DType::f64).to_vector<double>(), vb = b.cpu().to(DType::f64).to_vector<double>();
  for (size_t i = 0; i < va.size(); ++i)
    ASSERT_TRUE(va[i] == vb[i] || (std::isnan(va[i]) && std::isnan(vb[i])))
        << what << "[" << i << "]: " << va[i] << " on the CPU, " << vb[i] << " on " << b.device().str();
}

// max |a − b| ≤ 1e-3 · max(max |a|, 1e-6), after copying b to the host.
void expect_close(const Tensor& a, const Tensor& b, const std::string& what) {
  ASSERT_EQ(a.shape(), b.shape()) << what;
  const std::vector<double> va = a.to(DType::f64).to_vector<double>(), vb = b.cpu().to(DType::f64).to_vector<double>();
  double scale = 1e-6, worst = 0;
  for (size_t i = 0; i < va.size(); ++i) {
    scale = std::max(scale, std::fabs(va[i]));
    worst = std::max(worst, std::fabs(va[i] - vb[i]));
  }
  EXPECT_LE(worst, 1e-3 * scale) << what << ": max |cpu − " << b.device().str() << "| " << worst
                                 << " against max |cpu| " << scale;
}

// A device and how its results are held to the CPU's.
struct DeviceRun {
  Device device;
  CompareTensors compare;
  MakeOptimizer optimizer;
  double sums_rtol;  // metric sums within sums_rtol · max(1, |value|); 0: equal
};
void PrintTo(const DeviceRun& r, std::ostream* os) { *os << r.device.str(); }

// Two layers of d_model 16 and two heads; softmax and reformer's own dropout as the layers'.
TransformerOptions small_encoder(const std::string& attention, double dropout) {
  TransformerOptions o;
  o.n_layers = 2;
  o.d_model = 16;
  o.n_heads = 2;
  o.dropout = dropout;
  o.attention = attention;
  if (attention == "softmax") o.attention_params = {{"attention_dropout", dropout}};
  if (attention == "reformer")
    o.attention_params = {{"chunk_size", int64_t(4)}, {"bits", int64_t(2)}, {"rounds", int64_t(2)},
                          {"attention_dropout", dropout}};
  return o;
}

// B sequences of L tokens below vocab, with a loss mask over L − 1 positions.
ModelBatch token_batch(int64_t vocab, int64_t B, int64_t L, uint64_t seed) {
  Generator gen(seed);
  ModelBatch b;
  b.inputs = ops::randint({B, L}, 0, vocab, gen);
  b.mask = ops::gt(Tensor::uniform({B, L - 1}, gen), 0.3);
  return b;
}

// Three utterances of 6 features (12, 9 and 7 frames) with phone targets of 4, 3 and 2 of 4 phones.
ModelBatch speech_batch() {
  Generator gen(17);
  ModelBatch b;
  b.features = Tensor::normal({3, 12, 6}, gen, 0, 1);
  b.lengths = Tensor::from_vector(std::vector<int64_t>{12, 9, 7}, {3});
  b.targets = Tensor::from_vector(std::vector<int64_t>{1, 3, 3, 4, 2, 4, 1, 0, 4, 2, 0, 0}, {3, 4});
  b.target_lengths = Tensor::from_vector(std::vector<int64_t>{4, 3, 2}, {3});
  return b;
}

class NnModelsOnDevice : public ::testing::TestWithParam<DeviceRun> {
 protected:
  void SetUp() override { LINTRA_SKIP_WITHOUT_GPU_ON(device()); }
  Device device() const { return GetParam().device; }

  // Two updates of `cpu` and of `other` (the same model, moved to the device here) from the same batch.
  void expect_same_training(Model& cpu, Model& other, const ModelBatch& batch, const std::string& name) const {
    const DeviceRun& run = GetParam();
    other.to(run.device);
    ASSERT_EQ(other.device(), run.device);
    const ModelBatch on_device = batch.to(run.device);
    auto opt_cpu = run.optimizer(cpu), opt_other = run.optimizer(other);
    for (int step = 0; step < 2; ++step) {
      ModelOutput a = cpu.loss(batch), b = other.loss(on_device);
      ASSERT_EQ(b.loss.data().device(), run.device) << name;
      run.compare(a.loss.data(), b.loss.data(), name + " loss");
      ASSERT_EQ(a.sums.size(), b.sums.size()) << name;
      for (const auto& [key, value] : a.sums)
        EXPECT_LE(std::fabs(value - b.sums.at(key)), run.sums_rtol * std::max(1.0, std::fabs(value)))
            << name << " " << key;
      opt_cpu->zero_grad();
      opt_other->zero_grad();
      a.loss.backward();
      b.loss.backward();
      const auto pa = cpu.named_parameters(), pb = other.named_parameters();
      for (size_t i = 0; i < pa.size(); ++i) {
        ASSERT_EQ(pa[i].second.grad().defined(), pb[i].second.grad().defined()) << name << " " << pa[i].first;
        if (pa[i].second.grad().defined())
          run.compare(pa[i].second.grad(), pb[i].second.grad(), name + " grad " + pa[i].first);
      }
      opt_cpu->step();
      opt_other->step();
      for (size_t i = 0; i < pa.size(); ++i)
        run.compare(pa[i].second.data(), pb[i].second.data(), name + " param " + pa[i].first);
    }
  }
};

TEST_P(NnModelsOnDevice, CopyModelTrainsAsOnTheCpu) {
  for (const std::string attention : {"causal-linear", "softmax", "reformer"}) {
    TokenTransformerOptions o;
    o.vocab = 11;
    o.encoder = small_encoder(attention, 0.1);  // dropout masks must agree too
    CopyModel cpu(o, 3), other(o, 3);
    expect_same_training(cpu, other, token_batch(11, 3, 9, 4), "copy/" + attention);
  }
}

TEST_P(NnModelsOnDevice, ImageModelTrainsAsOnTheCpu) {
  for (const std::string attention : {"causal-linear", "softmax", "reformer"}) {
    TokenTransformerOptions o;
    o.encoder = small_encoder(attention, 0.1);
    ImageModel cpu(o, 5, 3), other(o, 5, 3);
    ModelBatch b = token_batch(256, 2, 12, 6);
    b.mask = Tensor();
    expect_same_training(cpu, other, b, "image/" + attention);
  }
}

TEST_P(NnModelsOnDevice, SpeechModelsTrainAsOnTheCpu) {
  for (const std::string attention : {"softmax", "linear", "reformer"}) {
    SpeechTransformerOptions o;
    o.input_dim = 6;
    o.n_phones = 4;
    o.encoder = small_encoder(attention, 0.1);
    SpeechTransformerModel cpu(o, 7), other(o, 7);
    expect_same_training(cpu, other, speech_batch(), "speech/" + attention);
  }
  BiLstmOptions l;
  l.input_dim = 6;
  l.hidden_size = 8;
  l.num_layers = 2;
  l.n_phones = 4;
  BiLstmModel cpu(l, 8), other(l, 8);
  expect_same_training(cpu, other, speech_batch(), "speech/bilstm");
}

TEST_P(NnModelsOnDevice, ImageGenerationEqualsTheCpus) {
  for (const std::string attention : {"causal-linear", "softmax"}) {
    TokenTransformerOptions o;
    o.encoder = small_encoder(attention, 0.0);
    ImageModel cpu(o, 9, 2), other(o, 9, 2);
    other.to(device());
    const Tensor prefix = Tensor::from_vector(std::vector<int64_t>{0, 10, 200, 0, 30, 40}, {2, 3});
    for (const Tensor& p : {Tensor(), prefix}) {
      Generator g1(11), g2(11);
      const Tensor a = generate_recurrent(cpu, 2, 10, g1, p, RecurrentBackend::modules);
      const Tensor b = generate_recurrent(other, 2, 10, g2, p);  // no engine off the CPU: the modules
      EXPECT_EQ(b.device(), device());
      EXPECT_EQ(a.to_vector<int64_t>(), b.cpu().to_vector<int64_t>()) << attention << " recurrent";
      Generator g3(12), g4(12);
      EXPECT_EQ(generate_recompute(cpu, 2, 10, g3, p).to_vector<int64_t>(),
                generate_recompute(other, 2, 10, g4, p).cpu().to_vector<int64_t>())
          << attention << " recompute";
    }
  }
}

TEST_P(NnModelsOnDevice, GreedyCopyEqualsTheCpus) {
  TokenTransformerOptions o;
  o.vocab = 11;
  o.encoder = small_encoder("causal-linear", 0.1);
  CopyModel cpu(o, 13), other(o, 13);
  other.to(device());
  const Tensor prefix = Tensor::from_vector(std::vector<int64_t>{3, 1, 4, 0, 5, 9, 2, 0}, {2, 4});
  const Tensor a = cpu.greedy(prefix, 4);
  const Tensor b = other.greedy(prefix.to(device()), 4);
  EXPECT_EQ(a.shape(), Shape({2, 4}));
  EXPECT_EQ(a.to_vector<int64_t>(), b.cpu().to_vector<int64_t>());
  EXPECT_TRUE(cpu.is_training());  // the mode is restored
}

std::unique_ptr<train::Optimizer> adam(const Module& m) { return testing::plain_adam(m, 1e-2); }
std::unique_ptr<train::Optimizer> sgd(const Module& m) { return testing::plain_sgd(m, 1e-2); }

std::string run_name(const ::testing::TestParamInfo<DeviceRun>& info) {
  return info.param.device.is_cuda() ? "cuda0" : "strict0";
}

INSTANTIATE_TEST_SUITE_P(Strict, NnModelsOnDevice, ::testing::Values(DeviceRun{kStrict, expect_bitwise, adam, 0.0}),
                         run_name);
INSTANTIATE_TEST_SUITE_P(Cuda, NnModelsOnDevice, ::testing::Values(DeviceRun{Device::cuda(0), expect_close, sgd, 1e-3}),
                         run_name);

TEST(NnModelsStrict, ModelsRefuseBatchesOnAnotherDevice) {
  TokenTransformerOptions o;
  o.vocab = 11;
  o.encoder = small_encoder("causal-linear", 0.0);
  CopyModel m(o, 1);
  m.to(kStrict);
  const std::string msg = testing::error_of([&] { m.loss(token_batch(11, 2, 5, 1)); });
  EXPECT_HAS(msg, "different devices");
  EXPECT_HAS(msg, "strict:0");
}

}  // namespace
}  // namespace lintra::nn
