// test_device_command.cpp — the config key `device` through the binary (issue 15.3), without a GPU:
// the strict test device (core/device.h: host code may not read its memory) stands in for one. A run
// trained on strict resumes on the CPU and the other way round, and both end bit for bit where a run
// on the CPU throughout ends (`lintra ckpt diff` compares every model and optimizer tensor);
// `lintra eval` and `lintra sample` compute on the device the checkpoint trained on, or on --device,
// with the CPU's numbers; a CUDA device that is not there is an error naming it, before anything is
// written.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/app/lintra_process.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using namespace lintra::testing;

namespace {

const std::string kCopy = kSource + "/configs/copy/smoke/softmax.yaml threads=1 train.log_every=1 ";

// Four updates on `first`, then on to eight on `then` (train.steps raised, device changed).
void train_across(const std::string& dir, const std::string& first, const std::string& then) {
  Result a = run(kLintra + " train " + kCopy + "train.steps=4 device=" + first + " --run-dir " + dir);
  ASSERT_EQ(a.status, 0) << a.output;
  Result b = run(kLintra + " train " + kCopy + "train.steps=8 device=" + then + " --run-dir " + dir);
  ASSERT_EQ(b.status, 0) << b.output;
  if (first != then) EXPECT_THAT(b.output, HasSubstr("device changed from " + first + " to " + then));
  EXPECT_THAT(b.output, HasSubstr("resumed from"));
}

void expect_same_checkpoint(const std::string& a, const std::string& b) {
  Result diff = run(kLintra + " ckpt diff " + a + " " + b);
  EXPECT_EQ(diff.status, 0) << a << " and " << b << " differ:\n" << diff.output;
}

// The metric lines of `lintra eval` (the header names the device, which may differ).
std::string metric_lines(const std::string& output) { return output.substr(output.find(":\n") + 2); }

}  // namespace

TEST(AppStrictDevice, ARunTrainedOnStrictResumesOnTheCpuAndBackWithTheCpusResult) {
  TempDir t;
  const std::string cpu = t.path() + "/cpu", s2c = t.path() + "/s2c", c2s = t.path() + "/c2s";
  train_across(cpu, "cpu", "cpu");
  train_across(s2c, "strict:0", "cpu");
  train_across(c2s, "cpu", "strict:0");
  EXPECT_THAT(read_text(s2c + "/train.log"), HasSubstr("parameters on strict:0"));
  EXPECT_THAT(read_text(c2s + "/config.yaml"), HasSubstr("device: \"strict:0\""));
  for (const std::string& dir : {s2c, c2s})
    for (const char* step : {"step_4.h5", "step_8.h5"})
      expect_same_checkpoint(cpu + "/checkpoints/" + step, dir + "/checkpoints/" + step);
  EXPECT_EQ(train_losses(s2c), train_losses(cpu));
  EXPECT_EQ(train_losses(c2s), train_losses(cpu));
  EXPECT_EQ(split_values(c2s, "eval", "loss"), split_values(cpu, "eval", "loss"));
  ASSERT_EQ(train_losses(cpu).size(), 8u);
}

TEST(AppStrictDevice, EvalAndSampleRunOnTheCheckpointsDeviceOrOnDeviceWithTheCpusNumbers) {
  TempDir t;
  const std::string dir = t.path() + "/run";
  Result r = run(kLintra + " train " + kCopy + "train.steps=4 device=strict --run-dir " + dir);
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string ckpt = dir + "/checkpoints/step_4.h5";
  Result own = run(kLintra + " eval " + ckpt);  // the checkpoint's config says strict:0
  ASSERT_EQ(own.status, 0) << own.output;
  EXPECT_THAT(own.output, HasSubstr("on strict:0:"));
  Result cpu = run(kLintra + " eval " + ckpt + " --device cpu");
  ASSERT_EQ(cpu.status, 0) << cpu.output;
  EXPECT_THAT(cpu.output, HasSubstr("on cpu:"));
  EXPECT_EQ(metric_lines(own.output), metric_lines(cpu.output));
  Result sample_strict = run(kLintra + " sample " + ckpt + " -n 3");
  Result sample_cpu = run(kLintra + " sample " + ckpt + " -n 3 --device cpu");
  ASSERT_EQ(sample_strict.status, 0) << sample_strict.output;
  ASSERT_EQ(sample_cpu.status, 0) << sample_cpu.output;
  EXPECT_THAT(sample_cpu.output, HasSubstr("copy accuracy over these 3"));
  EXPECT_EQ(sample_strict.output, sample_cpu.output);
}

// No machine has 64 GPUs: cuda:63 is missing with or without CUDA in the build.
TEST(AppStrictDevice, AMissingCudaDeviceIsAnErrorNamingItBeforeAnythingIsWritten) {
  TempDir t;
  const std::string dir = t.path() + "/run";
  Result r = run(kLintra + " train " + kCopy + "device=cuda:63 --run-dir " + dir);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("command line override `device=cuda:63`: device cuda:63: "));
  EXPECT_THAT(r.output, HasSubstr("set `device: cpu`"));
  EXPECT_FALSE(fs::exists(dir));
  ASSERT_EQ(run(kLintra + " train " + kCopy + "train.steps=2 --run-dir " + dir).status, 0);
  Result e = run(kLintra + " eval " + dir + "/checkpoints/step_2.h5 --device cuda:63");
  EXPECT_EQ(e.status, 2) << e.output;
  EXPECT_THAT(e.output, HasSubstr("eval: device cuda:63: "));
  EXPECT_THAT(e.output, HasSubstr("give --device cpu"));
  Result typo = run(kLintra + " sample " + dir + "/checkpoints/step_2.h5 --device gpu");
  EXPECT_EQ(typo.status, 2) << typo.output;
  EXPECT_THAT(typo.output, HasSubstr("sample: unknown device 'gpu'"));
}
