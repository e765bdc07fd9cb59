// test_data_parallel.cpp — the trainer's data-parallel parts with the ranks mpirun started (CTest
// runs it under `mpirun -np 2`; with one rank every case skips): the gradient averager (every rank
// the same sum, a gradient some rank lacks filled with zeros, one no rank has left alone; on the CPU
// and on the strict test device, whose memory the host may not read, through the host), the
// checkpoint rank 0 read arriving whole on every rank and every rank's state gathered for the save,
// and the checks that ranks train the same thing and that their parameters have not drifted apart.
#include <gtest/gtest.h>

#include "tests/test_util.h"
#include "train/checkpoint_exchange.h"
#include "train/distributed/world.h"
#include "train/gradient_averager.h"
#include "train/ranks.h"

namespace lintra::train {
namespace {

#define NEED_RANKS()                                                        \
  dist::Communicator& comm = dist::world();                                \
  if (comm.size() < 2) GTEST_SKIP() << "run under mpirun -np 2 (or more)"

NamedParam param(const std::string& name, std::vector<float> values) {
  return {name, Var(Tensor::from_vector(values, {int64_t(values.size())}), true)};
}

TEST(TrainDataParallel, AveragerSumsEveryRanksGradientAndFillsTheOnesARankLacks) {
  NEED_RANKS();
  const float r = float(comm.rank());
  std::vector<NamedParam> params{param("everywhere", {0, 0, 0}), param("on_rank_1", {0, 0}), param("nowhere", {0})};
  params[0].var.set_grad(Tensor::from_vector({r, 2 * r, 1}, {3}));
  if (comm.rank() == 1) params[1].var.set_grad(Tensor::from_vector({5, 6}, {2}));
  AllReduceAverager averager(comm, Device::cpu, /*bucket_bytes=*/8);
  averager.average(params);
  const float K = float(comm.size()), sum_r = K * (K - 1) / 2;
  EXPECT_EQ(params[0].var.grad().to_vector<float>(), (std::vector<float>{sum_r, 2 * sum_r, K}));
  ASSERT_TRUE(params[1].var.grad().defined());
  EXPECT_EQ(params[1].var.grad().to_vector<float>(), (std::vector<float>{5, 6}));
  EXPECT_FALSE(params[2].var.grad().defined());
}

// The same on the strict device: the gradients are summed through the host (copied there and back) and
// stay on the device, the zeros filled in for a rank that lacked one are made there too.
TEST(TrainDataParallel, AveragerSumsGradientsOnADeviceTheHostMayNotRead) {
  NEED_RANKS();
  const Device strict = Device::strict(0);
  auto on_device = [&](std::vector<float> v) { return Tensor::from_vector(v, {int64_t(v.size())}).to(strict); };
  const float r = float(comm.rank());
  std::vector<NamedParam> params{{"everywhere", Var(on_device({0, 0, 0}), true)},
                                 {"on_rank_1", Var(on_device({0, 0}), true)},
                                 {"nowhere", Var(on_device({0}), true)}};
  params[0].var.set_grad(on_device({r, 2 * r, 1}));
  if (comm.rank() == 1) params[1].var.set_grad(on_device({5, 6}));
  AllReduceAverager averager(comm, strict, /*bucket_bytes=*/8);
  averager.average(params);
  const float K = float(comm.size()), sum_r = K * (K - 1) / 2;
  ASSERT_EQ(params[0].var.grad().device(), strict);
  EXPECT_EQ(params[0].var.grad().to(Device::cpu).to_vector<float>(), (std::vector<float>{sum_r, 2 * sum_r, K}));
  ASSERT_TRUE(params[1].var.grad().defined());
  ASSERT_EQ(params[1].var.grad().device(), strict);
  EXPECT_EQ(params[1].var.grad().to(Device::cpu).to_vector<float>(), (std::vector<float>{5, 6}));
  EXPECT_FALSE(params[2].var.grad().defined());
  // A parameter elsewhere than the model is refused, naming it.
  std::vector<NamedParam> stray{{"stray", Var(Tensor::zeros({2}), true)}};
  stray[0].var.set_grad(Tensor::ones({2}));
  EXPECT_HAS(lintra::testing::error_of([&] { averager.average(stray); }), "parameter 'stray' lives on cpu");
}

CheckpointData small_checkpoint() {
  CheckpointData c;
  c.global_step = 12;
  c.epoch = 1;
  c.config_yaml = "seed: 1\n";
  c.source_path = "run/checkpoints/step_12.h5";
  c.model = {{"w", Tensor::from_vector({1, 2, 3, 4}, {2, 2})}, {"n", Tensor::scalar(7, DType::i64)}};
  c.optimizer_type = "adam";
  c.optimizer_step = 12;
  c.optimizer_hparams = {{"lr", 1e-3}};
  c.optimizer_slots["exp_avg"] = {{"w", Tensor::from_vector({0.5f, 0, 0, 1}, {2, 2})}};
  c.scheduler = {{"bad_epochs", 1}};
  c.ranks = {RankState{{{"model.dropout", GeneratorState{1, 3, 40}}}, DataPosition{1, 5, 1}},
             RankState{{{"model.dropout", GeneratorState{1, 3 + (uint64_t(1) << 32), 40}}}, DataPosition{1, 5, 1}}};
  c.trainer = {{"best", 2.5}};
  c.loss_history = {3, 2.75, 2.5};
  return c;
}

TEST(TrainDataParallel, RankZerosCheckpointArrivesWholeOnEveryRank) {
  NEED_RANKS();
  EXPECT_FALSE(share_checkpoint(comm, std::nullopt).has_value());
  const CheckpointData sent = small_checkpoint();
  const std::optional<CheckpointData> got = share_checkpoint(comm, comm.is_root() ? std::optional(sent) : std::nullopt);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->global_step, 12);
  EXPECT_EQ(got->config_yaml, sent.config_yaml);
  EXPECT_EQ(got->source_path, sent.source_path);
  ASSERT_EQ(got->model.size(), 2u);
  EXPECT_EQ(got->model[0].second.to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(got->model[0].second.shape(), (Shape{2, 2}));
  EXPECT_EQ(got->model[1].second.dtype(), DType::i64);
  EXPECT_EQ(got->optimizer_slots.at("exp_avg")[0].second.to_vector<float>(), (std::vector<float>{0.5f, 0, 0, 1}));
  EXPECT_EQ(got->optimizer_hparams, sent.optimizer_hparams);
  EXPECT_EQ(got->scheduler, sent.scheduler);
  EXPECT_EQ(got->ranks, sent.ranks);
  EXPECT_EQ(got->trainer, sent.trainer);
  EXPECT_EQ(got->loss_history, sent.loss_history);
}

TEST(TrainDataParallel, EveryRanksGeneratorsAndPositionAreGathered) {
  NEED_RANKS();
  RankState mine{{{"model.dropout", GeneratorState{1, uint64_t(comm.rank()) << 32, uint64_t(10 + comm.rank())}}},
                 DataPosition{0, 3, 9}};
  const std::vector<RankState> all = gather_rank_states(comm, mine);
  ASSERT_EQ(all.size(), size_t(comm.size()));
  for (int r = 0; r < comm.size(); ++r) {
    EXPECT_EQ(all[size_t(r)].rng.at("model.dropout").offset, uint64_t(10 + r));
    EXPECT_EQ(all[size_t(r)].data, (DataPosition{0, 3, 9}));
  }
}

TEST(TrainDataParallel, RanksThatTrainDifferentThingsOrHaveDriftedApartAreRefused) {
  NEED_RANKS();
  EXPECT_EQ(meet_ranks(comm, this_rank(1, "config abc")).size(), size_t(comm.size()));
  const std::string differ =
      testing::error_of([&] { meet_ranks(comm, this_rank(1, comm.rank() == 1 ? "config xyz" : "config abc")); });
  EXPECT_HAS(differ, "the ranks would train different things");
  EXPECT_HAS(differ, "rank 1 on ");
  EXPECT_HAS(differ, "config xyz");
  std::vector<NamedParam> params{param("w", {1, 2, 3})};
  check_replicas(comm, params, 5);  // the same everywhere: no error
  if (comm.rank() == 1) params[0].var.data().data<float>()[2] = 3.0001f;
  EXPECT_HAS(testing::error_of([&] { check_replicas(comm, params, 5); }), "after 5 updates the ranks' parameters differ");
}

}  // namespace
}  // namespace lintra::train
