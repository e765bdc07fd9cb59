#include "train/sample.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "autograd/node.h"
#include "data/files/png.h"
#include "data/speech/speech_corpus.h"
#include "nn/losses/ctc.h"
#include "nn/models/copy_model.h"
#include "nn/models/image_generation.h"
#include "nn/models/image_model.h"
#include "nn/models/speech_model.h"
#include "train/evaluate.h"
#include "train/factories.h"

namespace lintra::train {

namespace fs = std::filesystem;

namespace {

std::string phone_string(const std::vector<int64_t>& ids) {
  std::vector<std::string> names;
  for (int64_t id : ids) names.push_back(data::phone_name(id));
  return fmt::format("{}", fmt::join(names, " "));
}

// Speech "samples": the greedy CTC decodings of the first n test utterances beside their references.
int sample_speech(const SampleCommand& cmd, const Config& cfg, const CheckpointData& c, nn::SpeechModel& model) {
  DataSplits splits = build_data(cfg, /*with_test=*/true);
  NoGradGuard no_grad;
  model.eval();
  const int64_t n = std::min<int64_t>(cmd.n, splits.test->size());
  LINTRA_CHECK(n > 0, "sample: the test split of {} is empty", splits.test->name());
  std::vector<data::Sample> samples;
  for (int64_t i = 0; i < n; ++i) samples.push_back(splits.test->get(i));
  data::Batch b = data::collate(samples, 0);
  const Tensor lengths = b.lengths.to(model.device());
  Tensor z = model.log_probs(b.features.to(model.device()), lengths).data();
  auto hyp = nn::ctc_greedy_decode(z, lengths);
  fmt::print("{} (step {}): greedy CTC decodings of {} utterances of {}\n", cmd.checkpoint, c.global_step, n,
             splits.test->name());
  double dist = 0, ref = 0;
  for (int64_t i = 0; i < n; ++i) {
    const auto& r = samples[size_t(i)].targets;
    const int64_t d = nn::edit_distance(hyp[size_t(i)], r);
    dist += double(d);
    ref += double(r.size());
    fmt::print("[{}] edits {}/{}\n  ref: {}\n  hyp: {}\n", i, d, r.size(), phone_string(r), phone_string(hyp[size_t(i)]));
  }
  fmt::print("PER over these {}: {:.4f}\n", n, ref > 0 ? dist / ref : 0.0);
  return 0;
}

// Copy-task "samples": for the first n test sequences w 0 w, the model is given w and the separator
// and writes the copy greedily, one symbol per forward of the growing prefix.
int sample_copy(const SampleCommand& cmd, const Config& cfg, const CheckpointData& c, nn::CopyModel& model) {
  DataSplits splits = build_data(cfg, /*with_test=*/true);
  NoGradGuard no_grad;
  model.eval();
  const int64_t n = std::min<int64_t>(cmd.n, splits.test->size());
  fmt::print("{} (step {}): greedy copies of {} sequences of {}\n", cmd.checkpoint, c.global_step, n,
             splits.test->name());
  int64_t right = 0, total = 0;
  for (int64_t i = 0; i < n; ++i) {
    const std::vector<int64_t> seq = splits.test->get(i).tokens;
    const auto sep = std::find(seq.begin(), seq.end(), int64_t(0));
    LINTRA_CHECK(sep != seq.end() && sep != seq.begin(), "sample: {} item {} is not a copy-task sequence w 0 w",
                 splits.test->name(), i);
    const std::vector<int64_t> w(seq.begin(), sep);
    const std::vector<int64_t> prefix(seq.begin(), sep + 1);
    const Tensor given = Tensor::from_vector(prefix, {1, int64_t(prefix.size())}, model.device());
    const std::vector<int64_t> copy = model.greedy(given, int64_t(w.size())).cpu().to_vector<int64_t>();
    int64_t ok = 0;
    for (size_t k = 0; k < w.size(); ++k) ok += copy[k] == w[k];
    right += ok;
    total += int64_t(w.size());
    fmt::print("[{}] {}/{} symbols right\n  input: {}\n  copy:  {}\n", i, ok, w.size(), fmt::join(w, " "),
               fmt::join(copy, " "));
  }
  fmt::print("copy accuracy over these {}: {:.4f}\n", n, total > 0 ? double(right) / double(total) : 0.0);
  return 0;
}

// Image samples: n images pixel by pixel into a PNG grid (next to the checkpoint unless --out says).
int sample_image(const SampleCommand& cmd, const Config& cfg, const CheckpointData& c, nn::ImageModel& model) {
  const std::string data = cfg.get_string("data.name");
  const bool gray = data == "mnist" || data == "fashion-mnist";
  const int64_t side = gray ? 28 : 32, channels = gray ? 1 : 3;
  const int64_t length = side * side * channels;
  const bool recurrent = cmd.mode == "recurrent" || (cmd.mode == "auto" && model.has_recurrent());
  const bool engine_asked = !cmd.engine_weights.empty();
  LINTRA_CHECK(!engine_asked || recurrent,
               "sample --engine-weights: the compiled engine runs the recurrent form, and {} samples by recomputing "
               "the prefix ({})",
               cmd.checkpoint, cmd.mode == "recompute" ? "--mode recompute" : "its attention has no recurrent form");
  const nn::EngineWeights weights = !engine_asked                ? nn::default_engine_weights()
                                    : cmd.engine_weights == "bf16" ? nn::EngineWeights::bf16
                                                                   : nn::EngineWeights::f32;
  const bool on_engine = recurrent && nn::ImageRecurrentEngine::unsupported_reason(model).empty();
  Generator gen(cmd.seed, 0x73616d70);  // "samp"
  const auto t0 = std::chrono::steady_clock::now();
  Tensor images = recurrent ? nn::generate_recurrent(model, cmd.n, length, gen, {},
                                                     engine_asked ? nn::RecurrentBackend::engine
                                                                  : nn::RecurrentBackend::automatic,
                                                     weights)
                            : nn::generate_recompute(model, cmd.n, length, gen);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string out = cmd.out;
  if (out.empty()) {
    fs::path run = fs::path(cmd.checkpoint).parent_path().parent_path();
    fs::create_directories(run / "samples");
    out = (run / "samples" / fmt::format("step_{}.png", c.global_step)).string();
  }
  const int64_t cols = int64_t(std::ceil(std::sqrt(double(cmd.n))));
  data::write_png_grid(images.cpu(), (cmd.n + cols - 1) / cols, cols, side, side, channels, out);
  fmt::print("{} images ({}×{}×{}) generated {} in {:.2f} s ({:.3f} images/s); wrote {}\n", cmd.n, side, side, channels,
             !recurrent  ? "by recomputing the prefix"
             : on_engine ? fmt::format("with the recurrent form on the compiled engine ({} weights)",
                                       nn::engine_weights_name(weights))
                         : std::string("with the recurrent form"),
             secs, double(cmd.n) / secs, out);
  return 0;
}

}  // namespace

int run_sample(const SampleCommand& cmd) {
  CheckpointData c = load_checkpoint(cmd.checkpoint);
  Config cfg = config_from_checkpoint(c);
  const Device device = command_device(cfg, cmd.device, "sample");
  std::shared_ptr<nn::Model> model = build_model(cfg);
  load_model_weights(*model, c);
  model->to(device);
  auto* image = dynamic_cast<nn::ImageModel*>(model.get());
  LINTRA_CHECK(cmd.engine_weights.empty() || image != nullptr,
               "sample --engine-weights: only image models have the compiled recurrent engine, this is a {}",
               model->type_name());
  if (auto* speech = dynamic_cast<nn::SpeechModel*>(model.get())) return sample_speech(cmd, cfg, c, *speech);
  if (auto* copy = dynamic_cast<nn::CopyModel*>(model.get())) return sample_copy(cmd, cfg, c, *copy);
  LINTRA_CHECK(image != nullptr, "sample: {} holds a '{}' model; sampling is for image, speech and copy models",
               cmd.checkpoint, cfg.get_string("model.type"));
  return sample_image(cmd, cfg, c, *image);
}

}  // namespace lintra::train
