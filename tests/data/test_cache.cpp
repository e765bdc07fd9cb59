// test_cache.cpp — data_root resolution, shell quoting and TempDir.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "core/error.h"
#include "data/cache.h"
#include "data/files/shell.h"

namespace lintra::data {
namespace {

TEST(DataCache, RootResolutionOrder) {
  const char* saved = std::getenv("LINTRA_DATA");
  std::string saved_value = saved ? saved : "";
  unsetenv("LINTRA_DATA");
  EXPECT_EQ(data_root(), std::filesystem::path(LINTRA_TEST_SOURCE_DIR) / "data" / "cache");
  setenv("LINTRA_DATA", "/tmp/somewhere", 1);
  EXPECT_EQ(data_root(), std::filesystem::path("/tmp/somewhere"));
  EXPECT_EQ(data_root("/explicit"), std::filesystem::path("/explicit"));
  setenv("LINTRA_DATA", "", 1);
  EXPECT_EQ(data_root(), std::filesystem::path(LINTRA_TEST_SOURCE_DIR) / "data" / "cache");
  if (saved) setenv("LINTRA_DATA", saved_value.c_str(), 1);
  else unsetenv("LINTRA_DATA");
  EXPECT_EQ(dataset_dir("/r", "mnist"), std::filesystem::path("/r/mnist"));
}

TEST(DataCache, ShellQuoteSurvivesTheShell) {
  for (std::string s : {"plain", "with space", "it's", "$HOME `x` \"q\" \\ ;|&"}) {
    ShellResult r = run_shell("printf %s " + shell_quote(s));
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.output, s);
  }
  EXPECT_EQ(run_shell("exit 3").exit_code, 3);
  EXPECT_TRUE(have_program("sh"));
  EXPECT_FALSE(have_program("no-such-program-lintra"));
  EXPECT_THROW(run_shell_checked("echo oops; false", "the step"), lintra::Error);
}

TEST(DataCache, TempDirIsRemoved) {
  std::filesystem::path p;
  {
    TempDir t("lintra-test");
    p = t.path();
    ASSERT_TRUE(std::filesystem::is_directory(p));
    std::ofstream(p / "f") << "x";
    std::filesystem::create_directories(p / "a" / "b");
  }
  EXPECT_FALSE(std::filesystem::exists(p));
}

}  // namespace
}  // namespace lintra::data
