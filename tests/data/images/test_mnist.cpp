// test_mnist.cpp — the real MNIST files, when cached (data/cache/mnist or $LINTRA_DATA/mnist), and
// fetch_mnist. No network unless LINTRA_NETWORK_TESTS=1: with the files cached, fetch only verifies.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <cstring>

#include "data/cache.h"
#include "data/files/file_io.h"
#include "data/images/idx.h"
#include "data/images/mnist_fetch.h"
#include "data/files/sha256.h"
#include "data/files/shell.h"
#include "tests/data/test_util.h"

namespace lintra::data {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

bool network_tests_enabled() {
  const char* v = std::getenv("LINTRA_NETWORK_TESTS");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

TEST(DataMnist, FetchDownloadsOrVerifies) {
  const auto root = data_root();
  if (!mnist_present(root) && !network_tests_enabled()) {
    GTEST_SKIP() << "MNIST not cached in " << root << "; set LINTRA_NETWORK_TESTS=1 to download it";
  }
  std::vector<std::string> log;
  auto dir = fetch_mnist(root, [&](const std::string& m) { log.push_back(m); });
  EXPECT_EQ(dir, root / "mnist");
  EXPECT_TRUE(mnist_present(root));
  // A second call only verifies.
  log.clear();
  fetch_mnist(root, [&](const std::string& m) { log.push_back(m); });
  ASSERT_FALSE(log.empty());
  EXPECT_THAT(log.back(), HasSubstr("verified"));
}

TEST(DataMnist, TrainLabelHistogramAndPixelMean) {
  const auto root = data_root();
  if (!mnist_present(root)) GTEST_SKIP() << "MNIST not cached in " << root << " (lintra data fetch mnist)";
  MnistDataset train(root / "mnist", "train"), test(root / "mnist", "test");
  ASSERT_EQ(train.size(), 60000);
  ASSERT_EQ(test.size(), 10000);
  EXPECT_EQ(train.name(), "mnist/train");
  EXPECT_EQ(train.rows(), 28);
  EXPECT_EQ(train.cols(), 28);
  std::array<int64_t, 10> hist{};
  for (uint8_t l : train.labels()) ++hist[l];
  EXPECT_EQ(hist, (std::array<int64_t, 10>{5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949}));
  double sum = 0;
  for (int64_t i = 0; i < train.size(); ++i)
    for (uint8_t p : train.get(i).bytes) sum += p;
  EXPECT_NEAR(sum / 255.0 / (60000.0 * 784.0), 0.1307, 5e-5);
  EXPECT_EQ(train.get(0).label, 5);  // the famous first training digit
  EXPECT_NE(train.content_digest(), test.content_digest());
}

TEST(DataMnist, CorruptCachedFileIsAnErrorNamingDigests) {
  TempDir tmp("lintra-test-mnist");
  const PinnedFile& pin = mnist_files()[1];  // train-labels, 60008 bytes
  write_file(tmp.path() / "mnist" / pin.name, std::vector<uint8_t>(size_t(pin.bytes), 0));
  EXPECT_FALSE(mnist_present(tmp.path()));
  std::string msg = testing::error_of([&] { fetch_mnist(tmp.path()); });
  EXPECT_THAT(msg, AllOf(HasSubstr(pin.name), HasSubstr("expected " + pin.sha256), HasSubstr("actual "),
                         HasSubstr(sha256_hex(std::string(size_t(pin.bytes), '\0')))));
  write_file(tmp.path() / "mnist" / pin.name, std::vector<uint8_t>(10, 0));
  EXPECT_THAT(testing::error_of([&] { fetch_mnist(tmp.path()); }),
              AllOf(HasSubstr(pin.name), HasSubstr("expected 60008 bytes, actual 10 bytes")));
}

}  // namespace
}  // namespace lintra::data
