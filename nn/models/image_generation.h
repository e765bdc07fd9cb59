// image_generation.h — sampling images pixel by pixel from an ImageModel, with the paper's two
// protocols (PAPER.md §2.3 "Throughput protocol"; EXP image-generation/prediction.py):
//
//   generate_recurrent  the RNN form (ImageModel::step): one token per step, state carried across
//                       steps — constant memory per step for `causal-linear` (S, Z per layer), a
//                       growing key/value cache for `softmax` ("stateful-softmax", Table 4).
//                       O(L) steps of O(1) (linear) or O(t) (stateful softmax) work each.
//   generate_recompute  re-runs the batch model on the whole prefix for every new pixel (the
//                       paper's `predict`, its protocol for softmax and lsh in Tables 1, 2 and 5):
//                       any attention, O(L) forwards of growing length.
//
// The first pixel. The model never predicts pixel 0 (training reads x[:-1] and predicts x[1:]),
// so something must be fed first. The paper's `predict` writes into a zero-initialised buffer and
// conditions on the first `offset` pixels of real images; with no conditioning the first token is
// that buffer's 0. We do the same: without a prefix, pixel 0 is 0 (black; MNIST's top-left pixel
// is 0 in practically every image, CIFAR's red value of the top-left pixel is a free choice), and
// pixels 1 … length − 1 are sampled. A prefix (n, p), 1 ≤ p ≤ length, fixes the first p pixels
// instead (the paper's --offset conditioning). Unlike the paper's code, which appends one extra
// sample from the last output (L + 1 values), the result has exactly `length` pixels.
//
// Both functions draw from `gen` exactly once per sampled pixel position, through sample_mol with
// a (n, ·) batch, so with the same generator state and a recurrent twin that matches the batch
// model they return the same pixels (tests/nn/test_image_model.cpp checks this for causal-linear
// and softmax). The model runs in eval mode (dropout off, restored afterwards) without autograd.
//
// generate_recurrent runs on the compiled engine (image_recurrent_engine.h: packed weights, raw
// attention steps, threads split each token) whenever the model allows it (float32 on the CPU, an
// attention with a raw step); `modules` forces ImageModel::step(), `engine` refuses the fallback.
#pragma once

#include "core/rng.h"
#include "nn/models/image_model.h"
#include "nn/models/image_recurrent_engine.h"

namespace lintra::nn {

// n images of `length` pixels → int64 (n, length) on the model's device (the prefix may be on any).
// Throws lintra::Error when n or length < 1, when
// the prefix is not int64 (n, p) with 1 ≤ p ≤ length and values in [0, 255], and (recurrent) when
// the model's attention has no recurrent form (use generate_recompute then).
enum class RecurrentBackend { automatic, modules, engine };
// `weights`: the engine's weight format (image_recurrent_engine.h; bf16 when the process runs with
// matmul_precision bf16); the modules ignore it.
Tensor generate_recurrent(ImageModel& model, int64_t n, int64_t length, Generator& gen, const Tensor& prefix = {},
                          RecurrentBackend backend = RecurrentBackend::automatic,
                          EngineWeights weights = default_engine_weights());
Tensor generate_recompute(ImageModel& model, int64_t n, int64_t length, Generator& gen, const Tensor& prefix = {});

}  // namespace lintra::nn
