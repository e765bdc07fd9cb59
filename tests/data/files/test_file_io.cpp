// test_file_io.cpp — whole-file reads with transparent gunzip (data/files/file_io.h): plain and gzip
// files read to the same bytes, several gzip members are concatenated as gzip -c writes them, what
// follows the last member is ignored as gzip does, and truncated or corrupt data is an error naming
// the file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/error.h"
#include "data/files/file_io.h"

namespace lintra::data {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::vector<uint8_t> gzip(const std::vector<uint8_t>& data) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::vector<uint8_t> out(deflateBound(&z, uLong(data.size())) + 64);
  z.next_in = const_cast<Bytef*>(data.data());
  z.avail_in = uInt(data.size());
  z.next_out = out.data();
  z.avail_out = uInt(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
  return out;
}

std::string error_of(const std::vector<uint8_t>& bytes) {
  try {
    gunzip(bytes, "x.gz");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(DataFileIo, GzipAndPlainFilesReadToTheSameBytes) {
  std::vector<uint8_t> data(300000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(i * 7 % 251);
  const fs::path dir = fs::temp_directory_path() / ("lintra_test_file_io_" + std::to_string(::getpid()));
  write_file(dir / "plain", data);
  write_file(dir / "packed.gz", gzip(data));
  EXPECT_EQ(read_file_maybe_gz(dir / "plain"), data);
  EXPECT_EQ(read_file_maybe_gz(dir / "packed.gz"), data);
  EXPECT_TRUE(is_gzip_file(dir / "packed.gz"));
  fs::remove_all(dir);
}

TEST(DataFileIo, MembersConcatenateAndTrailingBytesAreIgnored) {
  std::vector<uint8_t> a = {1, 2, 3}, b = {4, 5};
  std::vector<uint8_t> two = gzip(a);
  const std::vector<uint8_t> gb = gzip(b);
  two.insert(two.end(), gb.begin(), gb.end());
  EXPECT_EQ(gunzip(two, "two.gz"), (std::vector<uint8_t>{1, 2, 3, 4, 5}));
  std::vector<uint8_t> trailing = gzip(a);
  trailing.insert(trailing.end(), {0, 0, 7});
  EXPECT_EQ(gunzip(trailing, "t.gz"), a);
}

TEST(DataFileIo, TruncatedOrCorruptGzipIsAnErrorNamingTheFile) {
  std::vector<uint8_t> data(1000, 42);
  std::vector<uint8_t> gz = gzip(data);
  EXPECT_THAT(error_of(std::vector<uint8_t>(gz.begin(), gz.begin() + gz.size() / 2)),
              HasSubstr("corrupt gzip data in 'x.gz'"));
  EXPECT_THAT(error_of({0x1f, 0x8b}), HasSubstr("'x.gz'"));
  gz[12] ^= 0xff;
  EXPECT_THAT(error_of(gz), HasSubstr("corrupt gzip data in 'x.gz'"));
}

}  // namespace
}  // namespace lintra::data
