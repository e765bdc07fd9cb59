// test_bench_smoke.cpp — `lintra bench attention` and `bench generate` run end to end at tiny sizes
// and write JSON with the documented fields. Timings are never asserted (benchmarks are not tests).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "bench/attention.h"
#include "bench/generate.h"

namespace lintra::bench {
namespace {

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
    EXPECT_EQ(r.size(), 9u) << r.dump();  // exactly the documented fields
    for (const char* key : {"variant", "n", "batch", "heads", "dim", "causal", "ms_per_sample", "mb_per_sample",
                            "skipped"})
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

}  // namespace
}  // namespace lintra::bench
