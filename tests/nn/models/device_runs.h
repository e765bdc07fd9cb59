// device_runs.h — what the model tests on another device share (test_strict_models.cpp: the strict
// test device, bit for bit; test_cuda_models.cpp: the GPU, to float32 rounding): small encoders of each
// attention, token and speech batches, and the side-by-side training of one model on the CPU and a
// copy on the device, whose loss, metric sums, gradients and parameters after each update `compare`
// checks.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>

#include "nn/models/model.h"
#include "nn/transformer_options.h"
#include "train/optim/optimizer.h"
#include "tests/nn/nn_test_util.h"

namespace lintra::testing {

// Two layers of d_model 16 and two heads; softmax and reformer's own dropout as the layers'.
inline nn::TransformerOptions small_encoder(const std::string& attention, double dropout) {
  nn::TransformerOptions o;
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
inline nn::ModelBatch token_batch(int64_t vocab, int64_t B, int64_t L, uint64_t seed) {
  Generator gen(seed);
  nn::ModelBatch b;
  b.inputs = ops::randint({B, L}, 0, vocab, gen);
  b.mask = ops::gt(Tensor::uniform({B, L - 1}, gen), 0.3);
  return b;
}

// Three utterances of 6 features (12, 9 and 7 frames) with phone targets of 4, 3 and 2 of 4 phones.
inline nn::ModelBatch speech_batch() {
  Generator gen(17);
  nn::ModelBatch b;
  b.features = Tensor::normal({3, 12, 6}, gen, 0, 1);
  b.lengths = Tensor::from_vector(std::vector<int64_t>{12, 9, 7}, {3});
  b.targets = Tensor::from_vector(std::vector<int64_t>{1, 3, 3, 4, 2, 4, 1, 0, 4, 2, 0, 0}, {3, 4});
  b.target_lengths = Tensor::from_vector(std::vector<int64_t>{4, 3, 2}, {3});
  return b;
}

// compare(cpu, device, what): a CPU tensor against the device's.
using CompareTensors = std::function<void(const Tensor&, const Tensor&, const std::string&)>;
using MakeOptimizer = std::function<std::unique_ptr<train::Optimizer>(const nn::Module&)>;

// Two updates of `cpu` and of `other` (the same model, moved to `device` here) from the same batch:
// the loss, every metric sum (within sums_rtol of max(1, |value|); 0: equal), every gradient and every
// parameter after each update go through compare.
inline void expect_same_training(nn::Model& cpu, nn::Model& other, Device device, const nn::ModelBatch& batch,
                                 const std::string& name, const CompareTensors& compare,
                                 const MakeOptimizer& make_optimizer, double sums_rtol) {
  other.to(device);
  ASSERT_EQ(other.device(), device);
  const nn::ModelBatch on_device = batch.to(device);
  auto opt_cpu = make_optimizer(cpu), opt_other = make_optimizer(other);
  for (int step = 0; step < 2; ++step) {
    nn::ModelOutput a = cpu.loss(batch), b = other.loss(on_device);
    ASSERT_EQ(b.loss.data().device(), device) << name;
    compare(a.loss.data(), b.loss.data(), name + " loss");
    ASSERT_EQ(a.sums.size(), b.sums.size()) << name;
    for (const auto& [key, value] : a.sums) {
      if (sums_rtol == 0) EXPECT_EQ(value, b.sums.at(key)) << name << " " << key;
      else EXPECT_LE(std::fabs(value - b.sums.at(key)), sums_rtol * std::max(1.0, std::fabs(value))) << name << " " << key;
    }
    opt_cpu->zero_grad();
    opt_other->zero_grad();
    a.loss.backward();
    b.loss.backward();
    const auto pa = cpu.named_parameters(), pb = other.named_parameters();
    for (size_t i = 0; i < pa.size(); ++i) {
      ASSERT_EQ(pa[i].second.grad().defined(), pb[i].second.grad().defined()) << name << " " << pa[i].first;
      if (pa[i].second.grad().defined()) compare(pa[i].second.grad(), pb[i].second.grad(), name + " grad " + pa[i].first);
    }
    opt_cpu->step();
    opt_other->step();
    for (size_t i = 0; i < pa.size(); ++i) compare(pa[i].second.data(), pb[i].second.data(), name + " param " + pa[i].first);
  }
}

}  // namespace lintra::testing
