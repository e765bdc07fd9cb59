// factories.h — the config → object mapping the trainer, `eval` and `sample` share: the data
// splits, the model, and the conversion of a data batch into a model batch. This is the only place
// that knows which data set and model types exist; the training loop itself has no per-experiment code.
#pragma once

#include <filesystem>
#include <memory>

#include "data/dataset.h"
#include "data/loader.h"
#include "nn/models/model.h"
#include "train/config/config.h"

namespace lintra::train {

// train: what the trainer learns from; eval: what it evaluates on while training (the validation
// split where the data set has one: speech dev; else the test split, as the paper's image runs);
// test: what `lintra eval` reports (the held-out test split).
struct DataSplits {
  std::unique_ptr<data::Dataset> train;
  std::unique_ptr<data::Dataset> eval;
  std::unique_ptr<data::Dataset> test;
};

// The data set of cfg.data. With with_test false, `test` stays empty (training does not read it).
DataSplits build_data(const Config& cfg, bool with_test = false);
// The folder of a speech corpus: espeak-speech → <data root>/espeak-speech-<corpus_size>; speech →
// data.corpus (absolute, or relative to the data root).
std::filesystem::path speech_corpus_dir(const Config& cfg);
std::shared_ptr<nn::Model> build_model(const Config& cfg);
nn::ModelBatch to_model_batch(const data::Batch& batch);

}  // namespace lintra::train
