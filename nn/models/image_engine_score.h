// image_engine_score.h — images scored token by token on the compiled recurrent engine
// (image_recurrent_engine.h): the recurrent form's likelihood of real data, teacher-forced. Feeding
// pixel t of each image gives the mixture parameters of pixel t + 1 (t = 0 … L − 2), and the loss is
// ImageModel's own (mixture_of_logistics_nll over the L − 1 predicted sub-pixels), so with float32
// weights the result equals ImageModel::loss() within float32 rounding, and with bf16 weights it
// measures what rounding the weights costs (`lintra eval --engine bf16`). Cost: L − 1 engine steps of
// the batch, O(L·layers·D·(4·H·E + 2·d_ff)) per image, plus the loss.
#pragma once

#include "nn/models/image_model.h"
#include "nn/models/image_recurrent_engine.h"

namespace lintra::nn {

// Summed NLL in nats over the B·(L − 1) predicted sub-pixels of `images` (int64 (B, L), values in
// [0, 256), L ≥ 2) and that count, as ImageModel::loss()'s sums {"nll_sum", "count"}. Runs the model in
// eval mode without autograd (restored after); throws when the engine cannot run the model.
MetricSums engine_nll_sums(ImageModel& model, const Tensor& images, EngineWeights weights);

}  // namespace lintra::nn
