// test_fashion_mnist.cpp — Fashion-MNIST from Debian's dataset-fashion-mnist (gzipped IDX files in
// /usr/share/datasets/fashion-mnist), read by the same IDX reader as MNIST. Skips when the package is
// not installed (tools/install-deps.sh installs it).
#include <gtest/gtest.h>

#include <array>
#include <filesystem>

#include "data/images/idx.h"

namespace lintra::data {
namespace {

const char* kDir = "/usr/share/datasets/fashion-mnist";

TEST(DataFashionMnist, GzippedSplitsHaveTheirSizesAndBalancedLabels) {
  if (!std::filesystem::exists(std::string(kDir) + "/train-images-idx3-ubyte.gz"))
    GTEST_SKIP() << kDir << " missing (apt-get install dataset-fashion-mnist)";
  for (const auto& [split, n] : {std::pair<std::string, int64_t>{"train", 60000}, {"test", 10000}}) {
    MnistDataset ds(kDir, split);
    ASSERT_EQ(ds.size(), n) << split;
    EXPECT_EQ(ds.name(), "fashion-mnist/" + split);
    std::array<int64_t, 10> hist{};
    for (int64_t i = 0; i < ds.size(); ++i) {
      Sample s = ds.get(i);
      ASSERT_EQ(s.bytes.size(), 784u);
      ASSERT_GE(s.label, 0);
      ASSERT_LE(s.label, 9);
      ++hist[size_t(s.label)];
    }
    // Fashion-MNIST is balanced: 6,000 (train) or 1,000 (test) images per class.
    for (int64_t c = 0; c < 10; ++c) EXPECT_EQ(hist[size_t(c)], n / 10) << split << " class " << c;
  }
}

}  // namespace
}  // namespace lintra::data
