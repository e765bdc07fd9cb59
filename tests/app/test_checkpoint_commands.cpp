// test_checkpoint_commands.cpp — `lintra ckpt`, `eval` and `sample` as scripts use them: a missing
// path is an error (exit 2) with a clear message, a place without checkpoints or a broken file exits 1,
// and `eval RUN` falls back as `train` does when `latest` names a file that is gone.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/app/lintra_process.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace lintra::testing;

namespace {

// A finished 8-update copy run with checkpoints at steps 4 and 8.
std::string trained_run(const TempDir& t) {
  const std::string dir = t.path() + "/run";
  Result r = run(train_cmd(dir, 8));
  EXPECT_EQ(r.status, 0) << r.output;
  return dir;
}

}  // namespace

TEST(AppCheckpointCommands, AMissingPathExits2NamingIt) {
  for (const char* action : {"ls", "info", "verify"}) {
    Result r = run(kLintra + " ckpt " + action + " /missing/run");
    EXPECT_EQ(r.status, 2) << action << ": " << r.output;
    EXPECT_THAT(r.output, HasSubstr(std::string("ckpt ") + action + ": /missing/run: no such file or directory"));
    EXPECT_THAT(r.output, Not(HasSubstr("internal error")));
  }
}

TEST(AppCheckpointCommands, NoCheckpointsOrABrokenOneExits1) {
  TempDir t;
  fs::create_directories(t.path() + "/empty/checkpoints");
  Result ls = run(kLintra + " ckpt ls " + t.path() + "/empty");
  EXPECT_EQ(ls.status, 1) << ls.output;
  EXPECT_THAT(ls.output, HasSubstr("no checkpoints"));
  const std::string junk = t.path() + "/junk.h5";
  std::ofstream(junk) << "not a checkpoint";
  for (const char* action : {"info", "verify", "ls"}) {
    Result r = run(kLintra + " ckpt " + action + " " + junk);
    EXPECT_EQ(r.status, 1) << action << ": " << r.output;
  }
  EXPECT_THAT(run(kLintra + " ckpt info " + junk).output, HasSubstr("verification  FAILED"));
  const std::string dir = trained_run(t);
  EXPECT_EQ(run(kLintra + " ckpt ls " + dir).status, 0);
  Result info = run(kLintra + " ckpt info " + dir);  // a run directory: its latest
  EXPECT_EQ(info.status, 0) << info.output;
  EXPECT_THAT(info.output, HasSubstr("step          8"));
}

// Issue 17.7: `eval RUN` failed on a dangling `latest` where `train` falls back.
TEST(AppCheckpointCommands, EvalOfARunWhoseLatestIsGoneUsesTheNewestComplete) {
  TempDir t;
  const std::string dir = trained_run(t);
  fs::remove(dir + "/checkpoints/step_8.h5");
  Result ev = run(kLintra + " eval " + dir + " --batches 1");
  EXPECT_EQ(ev.status, 0) << ev.output;
  EXPECT_THAT(ev.output, HasSubstr("latest names step_8.h5, which does not exist; using " + dir +
                                   "/checkpoints/step_4.h5, the newest complete checkpoint"));
  EXPECT_THAT(ev.output, HasSubstr("(step 4)"));
  Result sample = run(kLintra + " sample " + dir + " -n 1");
  EXPECT_EQ(sample.status, 0) << sample.output;
}

// `eval --engine` scores image models on the compiled recurrent engine; any other model is a clear
// error (exit 2), as is an unknown weight format.
TEST(AppCheckpointCommands, EvalOnTheEngineRefusesModelsWithoutOne) {
  TempDir t;
  const std::string dir = trained_run(t);  // a copy-task model
  Result ev = run(kLintra + " eval " + dir + " --batches 1 --engine bf16");
  EXPECT_EQ(ev.status, 2) << ev.output;
  EXPECT_THAT(ev.output, HasSubstr("--engine: only image models have the compiled recurrent engine, this is a CopyModel"));
  Result bad = run(kLintra + " eval " + dir + " --engine f16");
  EXPECT_NE(bad.status, 0) << bad.output;
  EXPECT_THAT(bad.output, HasSubstr("--engine"));
}

// `sample --engine-weights` runs an image model's recurrent form on the compiled engine with the
// weights asked for (bf16 on any CPU) and says so; asking it of a model or a mode the engine does not
// run is a clear error (exit 2).
TEST(AppCheckpointCommands, SampleRunsTheEngineWithTheWeightsAskedFor) {
  TempDir t;
  const std::string image = t.path() + "/image";
  Result tr = run(kLintra + " train " + kSource + "/configs/mnist/smoke/linear.yaml train.steps=2 threads=1 --run-dir " +
                  image);
  ASSERT_EQ(tr.status, 0) << tr.output;
  for (const char* w : {"bf16", "f32"}) {
    const std::string png = t.path() + "/" + w + ".png";
    Result s = run(kLintra + " sample " + image + " -n 2 --out " + png + " --engine-weights " + w);
    EXPECT_EQ(s.status, 0) << s.output;
    EXPECT_THAT(s.output, HasSubstr("with the recurrent form on the compiled engine (" + std::string(w) + " weights)"));
    EXPECT_TRUE(fs::exists(png)) << png;
  }
  Result recompute = run(kLintra + " sample " + image + " -n 1 --out " + t.path() + "/r.png --mode recompute --engine-weights bf16");
  EXPECT_EQ(recompute.status, 2) << recompute.output;
  EXPECT_THAT(recompute.output, HasSubstr("the compiled engine runs the recurrent form"));
  Result copy = run(kLintra + " sample " + trained_run(t) + " -n 1 --engine-weights bf16");
  EXPECT_EQ(copy.status, 2) << copy.output;
  EXPECT_THAT(copy.output, HasSubstr("only image models have the compiled recurrent engine, this is a CopyModel"));
}
