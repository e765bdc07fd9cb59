// factories.h — the config → object mapping the trainer, `eval` and `sample` share: the data
// splits, the model, and the conversion of a data batch into a model batch. This is the only place
// that knows which data set and model types exist; the training loop itself has no per-experiment code.
#pragma once

#include <memory>

#include "data/dataset.h"
#include "data/loader.h"
#include "nn/models/model.h"
#include "train/config.h"

namespace lintra::train {

struct DataSplits {
  std::unique_ptr<data::Dataset> train;
  std::unique_ptr<data::Dataset> eval;
};

DataSplits build_data(const Config& cfg);
std::shared_ptr<nn::Model> build_model(const Config& cfg);
nn::ModelBatch to_model_batch(const data::Batch& batch);

}  // namespace lintra::train
