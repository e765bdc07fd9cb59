// test_bench_smoke.cpp — `lintra bench attention`, `bench train` (also on the strict device) and
// `bench generate` run end to end at tiny sizes and write JSON with the documented fields; `bench
// kernels` refuses a device it has no cases for, and a missing GPU, naming it (its GPU cases and the
// direct cuBLAS yardstick run in experiments/gpu/check.sh). Timings are never asserted (benchmarks are
// not tests).
#include <gtest/gtest.h>

#include <strings.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "bench/attention.h"
#include "bench/cuda_reference.h"
#include "bench/generate.h"
#include "bench/kernels.h"
#include "bench/timer.h"
#include "bench/train.h"
#include "core/device.h"
#include "core/error.h"
#include "core/openblas_core.h"
#include "tests/test_util.h"

namespace lintra::bench {
namespace {

using lintra::testing::error_of;

nlohmann::json read_json(const std::filesystem::path& p) {
  std::ifstream f(p);
  return nlohmann::json::parse(f);
}

std::filesystem::path temp_file(const std::string& name) {
  return std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()) + ".json");
}

TEST(BenchSmoke, AttentionWritesOneObjectPerVariantAndN) {
  AttentionBenchOptions o;
  o.json_path = temp_file("bench_attention").string();
  o.variants = {"softmax", "causal-linear", "no-such-variant"};
  o.min_n = 64;
  o.max_n = 256;
  o.tokens = 256;
  o.heads = 2;
  o.dim = 8;
  o.min_seconds = 0;
  o.memory_cap_mb = 0.5;  // softmax at N = 256 (≥ 3·2·256²·4 bytes) is predicted over it
  const auto rows = run_attention_benchmark(o);
  const auto j = read_json(o.json_path);
  std::filesystem::remove(o.json_path);
  ASSERT_EQ(rows.size(), 9u);
  ASSERT_EQ(j.size(), 9u);
  for (const auto& r : j) {
    EXPECT_EQ(r.size(), 10u) << r.dump();  // exactly the documented fields
    for (const char* key : {"variant", "device", "n", "batch", "heads", "dim", "causal", "ms_per_sample",
                            "mb_per_sample", "skipped"})
      EXPECT_TRUE(r.contains(key)) << key;
  }
  EXPECT_EQ(j[0]["variant"], "softmax");
  EXPECT_FALSE(j[0]["skipped"].get<bool>());
  EXPECT_GT(j[0]["ms_per_sample"].get<double>(), 0);
  EXPECT_GT(j[0]["mb_per_sample"].get<double>(), 0);
  EXPECT_EQ(j[0]["batch"], 4);
  EXPECT_TRUE(j[2]["skipped"].get<bool>());  // over the cap
  EXPECT_TRUE(j[2]["ms_per_sample"].is_null());
  EXPECT_FALSE(j[3]["skipped"].get<bool>());  // causal-linear, N = 64
  EXPECT_TRUE(j[3]["causal"].get<bool>());
  EXPECT_TRUE(j[6]["skipped"].get<bool>());  // an unknown variant is reported, not thrown
  EXPECT_NE(rows[6].note.find("no-such-variant"), std::string::npos);
}

// --device strict: the inner attentions' forward and backward run on the strict test device (no host
// loop over its tensors) and measure its allocator; a device the machine lacks fails naming it.
TEST(BenchSmoke, AttentionRunsOnTheStrictDevice) {
  AttentionBenchOptions o;
  o.variants = {"softmax", "causal-linear", "linear", "reformer"};
  o.min_n = 64;
  o.max_n = 64;
  o.tokens = 64;
  o.heads = 2;
  o.dim = 8;
  o.min_seconds = 0;
  o.device = "strict";
  const auto rows = run_attention_benchmark(o);
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& r : rows) {
    EXPECT_FALSE(r.skipped) << r.variant << ": " << r.note;
    EXPECT_EQ(r.device, "strict");
    EXPECT_GT(r.mb_per_sample, 0) << r.variant;
  }
  if (!cuda_available()) {
    o.device = "cuda:0";
    EXPECT_HAS(error_of([&] { run_attention_benchmark(o); }), "cuda:0");
  }
}

TEST(BenchSmoke, GenerateWritesEveryVariant) {
  GenerateBenchOptions o;
  o.json_path = temp_file("bench_generate").string();
  o.batch_sizes = {1, 2};
  o.layers = 1;
  o.heads = 2;
  o.d_query = 4;
  o.length = 12;
  o.pixels = 2;
  o.min_seconds = 0;
  const auto rows = run_generate_benchmark(o);
  const auto j = read_json(o.json_path);
  std::filesystem::remove(o.json_path);
  ASSERT_EQ(j.size(), 8u);
  for (const auto& r : j)
    for (const char* key : {"variant", "batch", "images_per_s", "seconds_per_image", "extrapolated"})
      EXPECT_TRUE(r.contains(key)) << key;
  EXPECT_EQ(j[0]["variant"], "causal-linear");
  EXPECT_EQ(j[2]["variant"], "stateful-softmax");
  EXPECT_EQ(j[4]["variant"], "softmax");
  EXPECT_EQ(j[6]["variant"], "reformer");
  EXPECT_GT(j[0]["images_per_s"].get<double>(), 0);
  EXPECT_FALSE(j[0]["extrapolated"].get<bool>());
  EXPECT_TRUE(j[0].contains("ms_per_token_first_10pct"));
  EXPECT_TRUE(j[4]["extrapolated"].get<bool>());
  EXPECT_EQ(j[4]["pixels_timed"], 2);
  EXPECT_GT(j[4]["seconds_per_image"].get<double>(), 0);
}

// --device strict: generation on the strict test device (the engine rows fall back to the modules and
// say so), recurrent and recomputed.
TEST(BenchSmoke, GenerateRunsOnTheStrictDevice) {
  GenerateBenchOptions o;
  o.batch_sizes = {2};
  o.layers = 1;
  o.heads = 2;
  o.d_query = 4;
  o.length = 10;
  o.pixels = 2;
  o.min_seconds = 0;
  o.variants = {"causal-linear", "softmax"};
  o.device = "strict";
  const auto rows = run_generate_benchmark(o);
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& r : rows) {
    EXPECT_TRUE(r.available) << r.variant << ": " << r.note;
    EXPECT_EQ(r.device, "strict");
    EXPECT_GT(r.images_per_s, 0) << r.variant;
  }
  EXPECT_EQ(rows[0].backend, "modules");
  EXPECT_HAS(rows[0].note, "gives way to the modules");
}

TEST(BenchSmoke, TrainWritesOneObjectPerShapeAndVariant) {
  TrainBenchOptions o;
  o.json_path = temp_file("bench_train").string();
  o.configs_dir = std::string(LINTRA_SOURCE_DIR) + "/configs";
  o.smoke = true;
  o.steps = 1;
  const auto rows = run_train_benchmark(o);
  const auto j = read_json(o.json_path);
  std::filesystem::remove(o.json_path);
  ASSERT_EQ(rows.size(), kTrainShapes.size() * kTrainVariants.size());
  ASSERT_EQ(j.size(), rows.size());
  for (const auto& r : j) {
    for (const char* key : {"variant", "shape", "batch", "step_s", "model_gflop", "gflops_per_s", "sgemm_gflops_per_s",
                            "peak_rss_mb", "sys_s", "user_s", "cpu", "simd_target", "blas_core", "blas_core_note"})
      EXPECT_TRUE(r.contains(key)) << key << " in " << r.dump();
    for (const char* key : {"step_s", "model_gflop", "gflops_per_s", "sgemm_gflops_per_s", "sgemm_before_gflops_per_s",
                            "sgemm_after_gflops_per_s", "peak_rss_mb"})
      EXPECT_GT(r[key].get<double>(), 0) << key << " in " << r.dump();
    EXPECT_EQ(r["sgemm_gflops_per_s"].get<double>(),  // the faster of the two yardstick measurements
              std::max(r["sgemm_before_gflops_per_s"].get<double>(), r["sgemm_after_gflops_per_s"].get<double>()));
    EXPECT_GE(r["sys_s"].get<double>(), 0);
    EXPECT_EQ(r["batch"], 2);
  }
  EXPECT_EQ(j[0]["shape"], "mnist");
  EXPECT_EQ(j[0]["variant"], "softmax");
  EXPECT_EQ(j[1]["variant"], "causal-linear");
  EXPECT_EQ(j[4]["shape"], "cifar10");
  EXPECT_EQ(j[4]["layers"], 1);
  // Model FLOPs follow the variant: softmax's N×N attention costs more than causal-linear's.
  EXPECT_GT(j[0]["model_gflop"].get<double>(), j[1]["model_gflop"].get<double>());
  // Causal-linear's count by hand at the smoke sizes (d = 2 heads × 4 = 8; d_ff = 0 in the config means
  // 4·d = 32, as the model builds it; 10 logistics): per token 4d² + 2·d·d_ff projection and
  // feed-forward multiply-adds, 2·H·E² for the attention, 3·d·K for the head; 3 × 2 FLOPs each.
  const double N = j[1]["length"].get<double>() - 1, B = 2;
  const double per_token = (4 * 8 * 8 + 2 * 8 * 32) + 2 * 2 * 4 * 4 + 8 * 3 * 10;
  EXPECT_NEAR(j[1]["model_gflop"].get<double>(), 6 * B * N * per_token / 1e9, 1e-12);
}

TEST(BenchSmoke, TrainShrinksARowOverTheMemoryCapAndSaysSo) {
  TrainBenchOptions o;
  o.configs_dir = std::string(LINTRA_SOURCE_DIR) + "/configs";
  o.smoke = true;
  o.steps = 1;
  o.shapes = {"mnist"};
  o.variants = {"softmax"};
  o.memory_cap_mb = 1e-6;  // nothing fits: 1 layer (smoke has 1) at batch 1 of 2
  const auto rows = run_train_benchmark(o);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].batch, 2);
  EXPECT_EQ(rows[0].timed_batch, 1);
  EXPECT_EQ(rows[0].timed_layers, 1);
  EXPECT_NE(rows[0].note.find("batch 1 of 2"), std::string::npos) << rows[0].note;
  o.memory_cap_mb = 1e6;
  EXPECT_TRUE(run_train_benchmark(o)[0].note.empty());
}

// --device: every variant's step runs on the strict test device (no host loop over its tensors), the
// yardstick is that device's matmul, and the rows say where they ran; a device this build or machine
// lacks fails before any row, naming it.
TEST(BenchSmoke, TrainRunsOnTheStrictDeviceAndRefusesAMissingOne) {
  TrainBenchOptions o;
  o.configs_dir = std::string(LINTRA_SOURCE_DIR) + "/configs";
  o.smoke = true;
  o.steps = 1;
  o.shapes = {"mnist"};
  o.device = "strict";
  const auto rows = run_train_benchmark(o);
  ASSERT_EQ(rows.size(), kTrainVariants.size());
  for (const auto& r : rows) {
    EXPECT_EQ(r.device, "strict");
    EXPECT_GT(r.step_s, 0);
    EXPECT_GT(r.sgemm_gflops_per_s, 0);
  }
  if (!cuda_available()) {
    o.device = "cuda:0";
    EXPECT_HAS(error_of([&] { run_train_benchmark(o); }), "cuda:0");
  }
}

TEST(BenchSmoke, TrainRejectsAnUnknownShapeOrVariant) {
  TrainBenchOptions o;
  o.configs_dir = std::string(LINTRA_SOURCE_DIR) + "/configs";
  o.smoke = true;
  o.steps = 1;
  o.shapes = {"imagenet"};
  EXPECT_THROW(run_train_benchmark(o), Error);
  o.shapes = {"mnist"};
  o.variants = {"performer"};
  EXPECT_THROW(run_train_benchmark(o), Error);
}

TEST(BenchSmoke, KernelsRefuseTheStrictDeviceAndAMissingGpu) {
  KernelBenchOptions o;
  o.device = "strict";
  EXPECT_HAS(error_of([&] { run_kernel_benchmarks(o); }), "no cases for device strict:0");
  o.device = "tpu";
  EXPECT_THROW(run_kernel_benchmarks(o), Error);
  if (!cuda_available()) {
    o.device = "cuda:0";
    EXPECT_HAS(error_of([&] { run_kernel_benchmarks(o); }), "cuda:0");
    // The yardstick itself: an error (a build without CUDA, or no GPU), never a silent zero rate.
    EXPECT_THROW(DirectCublas(0, 1, 8, 8, 8), Error);
  }
}

// The bench headers name BLAS kernels that differ from lintra's pick for the CPU, and where they came
// from: a yardstick on them measures less than the CPU can.
TEST(BenchBlasCoreNote, SaysWhenTheRunningKernelsAreNotLintrasPick) {
  EXPECT_EQ(blas_core_note("Cooperlake", "Cooperlake", "Cooperlake"), "");
  EXPECT_EQ(blas_core_note("HASWELL", "Haswell", nullptr), "");  // OpenBLAS's spelling may differ in case
  EXPECT_EQ(blas_core_note("Zen", nullptr, nullptr), "");       // no pick (no AVX2): nothing to say
  EXPECT_EQ(blas_core_note("Haswell", "Cooperlake", "Haswell"),
            "OPENBLAS_CORETYPE=Haswell from the environment; lintra's pick here: Cooperlake");
  EXPECT_EQ(blas_core_note("Prescott", "SkylakeX", nullptr),
            "OpenBLAS's own pick Prescott; lintra's pick here: SkylakeX");
  // This process: the note agrees with what runs here.
  const char* pick = openblas_core_for_this_cpu();
  const std::string running = blas_core(), note = blas_core_note();
  if (pick == nullptr || strcasecmp(running.c_str(), pick) == 0)
    EXPECT_EQ(note, "");
  else
    EXPECT_NE(note.find(std::string("lintra's pick here: ") + pick), std::string::npos) << note;
}

}  // namespace
}  // namespace lintra::bench
