// test_cifar.cpp — CIFAR-10 binary reading on crafted records: channel-fastest order, errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "data/images/cifar.h"
#include "data/files/file_io.h"
#include "data/files/shell.h"
#include "tests/data/test_util.h"

namespace lintra::data {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::error_of;

// One record: the label, then plane c holds (p + 50·c + seed) mod 256 at pixel p.
std::vector<uint8_t> record(uint8_t label, int seed) {
  std::vector<uint8_t> r{label};
  for (int c = 0; c < 3; ++c)
    for (int p = 0; p < 1024; ++p) r.push_back(uint8_t((p + 50 * c + seed) % 256));
  return r;
}

std::vector<uint8_t> concat(std::vector<uint8_t> a, const std::vector<uint8_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(DataCifar, ChannelFastestOrder) {
  TempDir tmp("lintra-test-cifar");
  auto path = tmp.path() / "one.bin";
  write_file(path, concat(record(3, 0), record(8, 7)));
  Cifar10Dataset ds = Cifar10Dataset::from_files({path}, "crafted");
  ASSERT_EQ(ds.size(), 2);
  Sample s = ds.get(0);
  EXPECT_EQ(s.label, 3);
  ASSERT_EQ(s.bytes.size(), 3072u);
  // r, g, b of pixel 0, then pixel 1, ...
  EXPECT_EQ(s.bytes[0], 0);
  EXPECT_EQ(s.bytes[1], 50);
  EXPECT_EQ(s.bytes[2], 100);
  EXPECT_EQ(s.bytes[3], 1);
  for (int p = 0; p < 1024; ++p)
    for (int c = 0; c < 3; ++c) ASSERT_EQ(s.bytes[size_t(3 * p + c)], uint8_t((p + 50 * c) % 256)) << p << "," << c;
  Sample t = ds.get(1);
  EXPECT_EQ(t.label, 8);
  EXPECT_EQ(t.bytes[3 * 5 + 2], uint8_t(5 + 100 + 7));
  EXPECT_EQ(ds.length(1), 3072);
}

TEST(DataCifar, SplitsReadTheirFilesInOrder) {
  TempDir tmp("lintra-test-cifar");
  auto dir = tmp.path() / "cifar-10-batches-bin";
  for (int k = 1; k <= 5; ++k)
    write_file(dir / ("data_batch_" + std::to_string(k) + ".bin"), record(uint8_t(k), k));
  write_file(dir / "test_batch.bin", concat(record(0, 0), record(9, 9)));
  Cifar10Dataset train(dir, "train"), test(dir, "test");
  EXPECT_EQ(train.name(), "cifar-10-batches-bin/train");
  ASSERT_EQ(train.size(), 5);
  for (int k = 0; k < 5; ++k) EXPECT_EQ(train.get(k).label, k + 1);
  ASSERT_EQ(test.size(), 2);
  EXPECT_EQ(test.get(1).label, 9);
  EXPECT_NE(train.content_digest(), test.content_digest());
  EXPECT_EQ(train.content_digest(), Cifar10Dataset(dir, "train").content_digest());
}

TEST(DataCifar, SizeNotMultipleOfRecordNamesFileAndSize) {
  TempDir tmp("lintra-test-cifar");
  auto path = tmp.path() / "bad.bin";
  std::vector<uint8_t> bytes = record(1, 0);
  bytes.resize(bytes.size() + 5);
  write_file(path, bytes);
  EXPECT_THAT(error_of([&] { Cifar10Dataset::from_files({path}, "x"); }),
              AllOf(HasSubstr(path.string()), HasSubstr("size 3078 bytes"), HasSubstr("multiple of the 3073"),
                    HasSubstr("byte offset 3073")));
}

TEST(DataCifar, LabelAboveNineNamesFileRecordAndOffset) {
  TempDir tmp("lintra-test-cifar");
  auto path = tmp.path() / "bad.bin";
  write_file(path, concat(record(1, 0), record(12, 0)));
  EXPECT_THAT(error_of([&] { Cifar10Dataset::from_files({path}, "x"); }),
              AllOf(HasSubstr(path.string()), HasSubstr("label 12 of record 1 at byte offset 3073")));
}

TEST(DataCifar, MissingFileIsNamed) {
  TempDir tmp("lintra-test-cifar");
  write_file(tmp.path() / "data_batch_1.bin", record(1, 0));
  EXPECT_THAT(error_of([&] { Cifar10Dataset(tmp.path(), "train"); }),
              HasSubstr((tmp.path() / "data_batch_2.bin").string()));
  EXPECT_THAT(error_of([&] { Cifar10Dataset(tmp.path(), "dev"); }), HasSubstr("'train' or 'test'"));
}

}  // namespace
}  // namespace lintra::data
