// test_strict_device.cpp — training state on the strict test device (core/device.h): the optimizers
// (sgd with momentum, adam with weight decay, radam with per-tensor clipping) and global-norm clipping
// update parameters on strict exactly as on the CPU, and checkpoints are device-independent: a model
// and optimizer trained on strict are saved (collect_checkpoint copies to the CPU), loaded into a CPU
// model (restore_checkpoint copies to the model's device) and the other way round, with every tensor
// bit for bit, and training continues identically on both sides. The same round trip between the CPU
// and the GPU (TrainStrictCheckpoint.CudaToCpu, CpuToCuda; skipped without a visible GPU) restores every
// tensor bit for bit; the step after it agrees to float32 rounding (relative 1e-4: the GPU's kernels and
// cuBLAS sum in another order), with the same batch and dropout stream on both sides.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "data/copy/copy_task.h"
#include "data/loader.h"
#include "nn/models/copy_model.h"
#include "train/factories.h"
#include "train/train_state.h"
#include "tests/test_util.h"

namespace lintra::train {
namespace {

namespace fs = std::filesystem;
const Device kStrict = Device::strict();

void expect_bitwise(const Tensor& a, const Tensor& b, const std::string& what) {
  ASSERT_EQ(a.shape(), b.shape()) << what;
  EXPECT_EQ(a.cpu().to(DType::f64).to_vector<double>(), b.cpu().to(DType::f64).to_vector<double>()) << what;
}

// Bit for bit when rtol is 0; else |a − b| ≤ rtol · max(1, |a|) element by element.
void expect_close(const Tensor& a, const Tensor& b, double rtol, const std::string& what) {
  if (rtol == 0) return expect_bitwise(a, b, what);
  ASSERT_EQ(a.shape(), b.shape()) << what;
  const std::vector<double> va = a.cpu().to(DType::f64).to_vector<double>(), vb = b.cpu().to(DType::f64).to_vector<double>();
  for (size_t i = 0; i < va.size(); ++i)
    ASSERT_LE(std::fabs(va[i] - vb[i]), rtol * std::max(1.0, std::fabs(va[i]))) << what << "[" << i << "]";
}

std::vector<NamedParam> params_on(Device d, std::vector<Var>& keep) {
  Generator gen(31);
  std::vector<NamedParam> out;
  for (const Shape& s : {Shape{5, 7}, Shape{7}, Shape{40000}}) {
    keep.push_back(Var(Tensor::normal(s, gen, 0, 1).to(d), true));
    out.push_back({fmt::format("p{}", out.size()), keep.back()});
  }
  return out;
}

void set_grads(std::vector<NamedParam>& ps, int step) {
  Generator gen(100 + uint64_t(step));
  for (NamedParam& p : ps) {
    Var v = p.var;
    v.set_grad(Tensor::normal(v.shape(), gen, 0, 3).to(v.data().device()));
  }
}

TEST(TrainStrictDevice, OptimizersStepOnStrictAsOnCpu) {
  std::vector<OptimizerOptions> all(3);
  all[0].name = "sgd", all[0].lr = 0.1, all[0].momentum = 0.9, all[0].weight_decay = 0.01;
  all[1].name = "adam", all[1].weight_decay = 0.1;
  all[2].name = "radam", all[2].max_grad_norm = 0.5;  // clipping on, and the SGD-like early steps
  for (const OptimizerOptions& o : all) {
    std::vector<Var> keep_cpu, keep_strict;
    auto opt_cpu = make_optimizer(params_on(Device::cpu, keep_cpu), o);
    auto opt_strict = make_optimizer(params_on(kStrict, keep_strict), o);
    std::vector<NamedParam> pc = opt_cpu->params(), ps = opt_strict->params();
    for (int step = 0; step < 7; ++step) {
      set_grads(pc, step);
      set_grads(ps, step);
      opt_cpu->step();
      opt_strict->step();
    }
    for (size_t i = 0; i < pc.size(); ++i) {
      EXPECT_EQ(ps[i].var.data().device(), kStrict);
      expect_bitwise(pc[i].var.data(), ps[i].var.data(), o.name + " " + pc[i].name);
    }
    for (const auto& [slot, tensors] : opt_strict->state())
      for (size_t i = 0; i < tensors.size(); ++i)
        expect_bitwise(opt_cpu->state().at(slot)[i].second, tensors[i].second, o.name + " " + slot);
  }
}

TEST(TrainStrictDevice, GlobalNormClippingOnStrictAsOnCpu) {
  std::vector<Var> keep_cpu, keep_strict;
  std::vector<NamedParam> pc = params_on(Device::cpu, keep_cpu), ps = params_on(kStrict, keep_strict);
  set_grads(pc, 0);
  set_grads(ps, 0);
  EXPECT_EQ(global_grad_norm(pc), global_grad_norm(ps));
  EXPECT_EQ(clip_global_grad_norm_(pc, 1.0), clip_global_grad_norm_(ps, 1.0));
  for (size_t i = 0; i < pc.size(); ++i) expect_bitwise(pc[i].var.grad(), ps[i].var.grad(), pc[i].name);
  EXPECT_NEAR(global_grad_norm(ps), 1.0, 1e-5);
}

// A copy model with its optimizer, schedule and loader: what a checkpoint captures.
struct Run {
  std::shared_ptr<nn::CopyModel> model;
  std::unique_ptr<Optimizer> opt;
  Schedule sched{ScheduleOptions{}};
  std::unique_ptr<data::DataLoader> loader;
  TrainState state;

  Run(const data::Dataset& ds, Device device) {
    nn::TokenTransformerOptions o;
    o.vocab = 11;
    o.encoder.n_layers = 1, o.encoder.d_model = 16, o.encoder.n_heads = 2, o.encoder.dropout = 0.1;
    o.encoder.attention = "causal-linear";
    model = std::make_shared<nn::CopyModel>(o, 21);
    model->to(device);
    std::vector<NamedParam> ps;
    for (const auto& [name, v] : model->named_parameters()) ps.push_back({name, v});
    OptimizerOptions oo;
    oo.name = "radam", oo.lr = 1e-2, oo.max_grad_norm = 1.0;
    opt = make_optimizer(std::move(ps), oo);
    loader = std::make_unique<data::DataLoader>(ds, data::LoaderOptions{.batch_size = 4, .seed = 3, .prefetch = 0});
  }

  double step() {
    data::Batch b = loader->next();
    nn::ModelOutput out = model->loss(to_model_batch(b).to(model->device()));
    opt->zero_grad();
    out.loss.backward();
    opt->step();
    state.step += 1;
    return out.sums.at("nll_sum");
  }
};

class TrainStrictCheckpoint : public ::testing::Test {
 protected:
  void SetUp() override { fs::create_directories(dir_); }
  void TearDown() override { fs::remove_all(dir_); }
  const data::CopyTaskDataset ds_{data::CopyTaskOptions{.size = 32, .max_length = 12, .seed = 5}};
  fs::path dir_ = fs::temp_directory_path() / fmt::format("lintra_strict_ckpt_{}", ::getpid());
};

// Trains `from` two steps, saves, restores into a fresh run on `to`, and checks both sides agree: the
// restored tensors bit for bit, the step after it within `step_rtol` (0: bit for bit).
void round_trip(const data::Dataset& ds, Device from, Device to, const fs::path& file, double step_rtol = 0) {
  Run a(ds, from);
  a.step();
  a.step();
  CheckpointData c = collect_checkpoint(*a.model, *a.opt, a.sched, a.state, "yaml", {rank_state(*a.model, *a.loader, 3)});
  for (const auto& [name, t] : c.model) EXPECT_EQ(t.device(), Device::cpu) << name;
  save_checkpoint(file.string(), c);
  Run b(ds, to);
  restore_checkpoint(load_checkpoint(file.string()), *b.model, *b.opt, b.sched, *b.loader, b.state);
  EXPECT_EQ(b.model->device(), to);
  const auto pa = a.model->named_parameters(), pb = b.model->named_parameters();
  for (size_t i = 0; i < pa.size(); ++i) expect_bitwise(pa[i].second.data(), pb[i].second.data(), pa[i].first);
  for (const auto& [slot, tensors] : b.opt->state())
    for (size_t i = 0; i < tensors.size(); ++i) {
      EXPECT_EQ(tensors[i].second.device(), to) << slot;
      expect_bitwise(a.opt->state().at(slot)[i].second, tensors[i].second, slot + " " + tensors[i].first);
    }
  // Training continues identically: same batch, same dropout stream, same optimizer state.
  const double la = a.step(), lb = b.step();
  if (step_rtol == 0) EXPECT_EQ(la, lb);
  else EXPECT_LE(std::fabs(la - lb), step_rtol * std::max(1.0, std::fabs(la)));
  for (size_t i = 0; i < pa.size(); ++i) expect_close(pa[i].second.data(), pb[i].second.data(), step_rtol, pa[i].first);
}

TEST_F(TrainStrictCheckpoint, StrictToCpu) { round_trip(ds_, kStrict, Device::cpu, dir_ / "a.h5"); }
TEST_F(TrainStrictCheckpoint, CpuToStrict) { round_trip(ds_, Device::cpu, kStrict, dir_ / "b.h5"); }

TEST_F(TrainStrictCheckpoint, CudaToCpu) {
  LINTRA_SKIP_WITHOUT_GPU();
  round_trip(ds_, Device::cuda(0), Device::cpu, dir_ / "c.h5", 1e-4);
}
TEST_F(TrainStrictCheckpoint, CpuToCuda) {
  LINTRA_SKIP_WITHOUT_GPU();
  round_trip(ds_, Device::cpu, Device::cuda(0), dir_ / "d.h5", 1e-4);
}

}  // namespace
}  // namespace lintra::train
