// test_idx.cpp — IDX reading and MnistDataset on tiny files written here; every bad input names the
// file and the byte offset.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "data/files/file_io.h"
#include "data/images/idx.h"
#include "data/files/shell.h"
#include "tests/data/test_util.h"

namespace lintra::data {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::error_of;

// Three 2×3 images with pixel value 10·i + p, labels 7, 0, 9.
struct TinyMnist {
  TempDir tmp{"lintra-test-idx"};
  std::filesystem::path dir = tmp.path() / "mnist";
  std::filesystem::path images = dir / "train-images-idx3-ubyte";
  std::filesystem::path labels = dir / "train-labels-idx1-ubyte";
  std::vector<uint8_t> pixels, label_bytes{7, 0, 9};

  TinyMnist() {
    for (int i = 0; i < 3; ++i)
      for (int p = 0; p < 6; ++p) pixels.push_back(uint8_t(10 * i + p));
    write_file(images, encode_idx({3, 2, 3}, pixels));
    write_file(labels, encode_idx({3}, label_bytes));
  }
};

TEST(DataIdx, EncodeWritesBigEndianHeader) {
  std::vector<uint8_t> bytes = encode_idx({3, 2, 258}, std::vector<uint8_t>(3 * 2 * 258, 1));
  std::vector<uint8_t> header(bytes.begin(), bytes.begin() + 16);
  EXPECT_EQ(header, (std::vector<uint8_t>{0, 0, 8, 3, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 1, 2}));
}

TEST(DataIdx, RoundTrip) {
  TinyMnist m;
  IdxArray a = read_idx(m.images, 3);
  EXPECT_EQ(a.dims, (std::vector<int64_t>{3, 2, 3}));
  EXPECT_EQ(a.data, m.pixels);
  EXPECT_EQ(a.data_offset, 16);

  MnistDataset ds(m.dir, "train");
  EXPECT_EQ(ds.name(), "mnist/train");
  ASSERT_EQ(ds.size(), 3);
  EXPECT_EQ(ds.rows(), 2);
  EXPECT_EQ(ds.cols(), 3);
  Sample s = ds.get(1);
  EXPECT_EQ(s.bytes, (std::vector<uint8_t>{10, 11, 12, 13, 14, 15}));
  EXPECT_EQ(s.label, 0);
  EXPECT_EQ(ds.get(2).label, 9);
  EXPECT_EQ(ds.length(0), 6);
  EXPECT_THAT(error_of([&] { ds.get(3); }), HasSubstr("out of range"));
}

TEST(DataIdx, GzippedFilesReadTheSame) {
  TinyMnist m;
  MnistDataset plain(m.dir, "train");
  run_shell_checked("gzip " + shell_quote(m.images.string()) + " " + shell_quote(m.labels.string()), "gzip");
  ASSERT_FALSE(std::filesystem::exists(m.images));
  MnistDataset gz(m.dir, "train");
  ASSERT_EQ(gz.size(), 3);
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(gz.get(i).bytes, plain.get(i).bytes);
    EXPECT_EQ(gz.get(i).label, plain.get(i).label);
  }
  EXPECT_EQ(gz.content_digest(), plain.content_digest());
}

TEST(DataIdx, DigestFollowsContent) {
  TinyMnist m;
  uint64_t d0 = MnistDataset(m.dir, "train").content_digest();
  EXPECT_EQ(MnistDataset(m.dir, "train").content_digest(), d0);
  m.pixels[5] ^= 1;
  write_file(m.images, encode_idx({3, 2, 3}, m.pixels));
  EXPECT_NE(MnistDataset(m.dir, "train").content_digest(), d0);
}

TEST(DataIdx, WrongMagicNamesFileAndOffset) {
  TinyMnist m;
  write_file(m.labels, encode_idx({3, 1, 1}, m.label_bytes));  // an images-style magic 0x803
  EXPECT_THAT(error_of([&] { MnistDataset(m.dir, "train"); }),
              AllOf(HasSubstr(m.labels.string()), HasSubstr("magic 0x00000803 at byte offset 0"),
                    HasSubstr("expected 0x00000801")));
}

TEST(DataIdx, TruncatedHeaderNamesFileAndOffset) {
  TinyMnist m;
  std::vector<uint8_t> bytes = encode_idx({3, 2, 3}, m.pixels);
  bytes.resize(10);  // magic + 1.5 dims
  write_file(m.images, bytes);
  EXPECT_THAT(error_of([&] { read_idx(m.images, 3); }),
              AllOf(HasSubstr(m.images.string()), HasSubstr("truncated IDX header"), HasSubstr("byte offset 10")));
  write_file(m.images, {0, 0});
  EXPECT_THAT(error_of([&] { read_idx(m.images, 3); }),
              AllOf(HasSubstr(m.images.string()), HasSubstr("byte offset 2")));
}

TEST(DataIdx, CountLargerThanFileNamesFileAndOffset) {
  TinyMnist m;
  write_file(m.images, encode_idx({3000000000ll, 2, 3}, m.pixels));  // header claims 3e9 images
  EXPECT_THAT(error_of([&] { MnistDataset(m.dir, "train"); }),
              AllOf(HasSubstr(m.images.string()), HasSubstr("count 3000000000 at byte offset 4"),
                    HasSubstr("file ends at byte offset 34")));
}

TEST(DataIdx, TruncatedDataNamesFileAndOffset) {
  TinyMnist m;
  std::vector<uint8_t> bytes = encode_idx({3, 2, 3}, m.pixels);
  bytes.resize(bytes.size() - 4);
  write_file(m.images, bytes);
  EXPECT_THAT(error_of([&] { MnistDataset(m.dir, "train"); }),
              AllOf(HasSubstr(m.images.string()), HasSubstr("truncated"), HasSubstr("to 34"),
                    HasSubstr("file ends at byte offset 30")));
}

TEST(DataIdx, TrailingBytesNameFileAndOffset) {
  TinyMnist m;
  std::vector<uint8_t> bytes = encode_idx({3}, m.label_bytes);
  bytes.push_back(0);
  write_file(m.labels, bytes);
  EXPECT_THAT(error_of([&] { MnistDataset(m.dir, "train"); }),
              AllOf(HasSubstr(m.labels.string()), HasSubstr("1 unexpected bytes"), HasSubstr("byte offset 11")));
}

TEST(DataIdx, ImageLabelCountMismatchNamesBothFiles) {
  TinyMnist m;
  write_file(m.labels, encode_idx({2}, {7, 0}));
  EXPECT_THAT(error_of([&] { MnistDataset(m.dir, "train"); }),
              AllOf(HasSubstr(m.images.string()), HasSubstr(m.labels.string()), HasSubstr("3 images"),
                    HasSubstr("2 labels"), HasSubstr("byte offset 4")));
}

TEST(DataIdx, LabelAboveNineNamesFileAndOffset) {
  TinyMnist m;
  write_file(m.labels, encode_idx({3}, {7, 0, 10}));
  EXPECT_THAT(error_of([&] { MnistDataset(m.dir, "train"); }),
              AllOf(HasSubstr(m.labels.string()), HasSubstr("label 10 of sample 2 at byte offset 10")));
}

TEST(DataIdx, MissingFilesAndBadSplit) {
  TinyMnist m;
  EXPECT_THAT(error_of([&] { MnistDataset(m.dir, "test"); }),
              AllOf(HasSubstr((m.dir / "t10k-images-idx3-ubyte").string()), HasSubstr(".gz")));
  EXPECT_THAT(error_of([&] { MnistDataset(m.dir, "valid"); }), HasSubstr("'train' or 'test'"));
  EXPECT_THAT(error_of([&] { read_idx(m.dir / "nope", 1); }), HasSubstr((m.dir / "nope").string()));
}

TEST(DataIdx, CorruptGzipNamesFile) {
  TinyMnist m;
  run_shell_checked("gzip " + shell_quote(m.images.string()), "gzip");
  auto gz = m.images.string() + ".gz";
  std::vector<uint8_t> bytes = read_file(gz);
  bytes.resize(bytes.size() / 2);
  write_file(gz, bytes);
  EXPECT_THAT(error_of([&] { MnistDataset(m.dir, "train"); }), HasSubstr(gz));
}

}  // namespace
}  // namespace lintra::data
