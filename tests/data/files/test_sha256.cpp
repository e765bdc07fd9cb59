// test_sha256.cpp — SHA-256 against the FIPS 180-2 / NIST example vectors.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>

#include "data/files/file_io.h"
#include "data/files/sha256.h"
#include "data/files/shell.h"

namespace lintra::data {
namespace {

TEST(DataSha256, Abc) {
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(DataSha256, EmptyString) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(DataSha256, Message448Bits) {  // two-block padding: 56 bytes leave no room for the length
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(DataSha256, Message896Bits) {
  EXPECT_EQ(sha256_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmno"
                       "pqrsmnopqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST(DataSha256, MillionAsInUnevenChunks) {
  Sha256 s;
  std::string a(1000000, 'a');
  size_t pos = 0, chunk = 1;
  while (pos < a.size()) {  // chunk sizes 1, 2, 3, ... exercise every buffer offset
    size_t take = std::min(chunk++, a.size() - pos);
    s.update(a.data() + pos, take);
    pos += take;
  }
  EXPECT_EQ(s.finish_hex(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // finish() resets: the object hashes a new message.
  s.update("abc");
  EXPECT_EQ(s.finish_hex(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(DataSha256, EveryLengthAroundTheBlockBoundaryMatchesSha256sum) {
  TempDir tmp("lintra-test-sha");
  for (size_t len : {0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129}) {
    std::vector<uint8_t> bytes(len);
    for (size_t i = 0; i < len; ++i) bytes[i] = uint8_t(i * 37 + 11);
    auto path = tmp.path() / fmt::format("f{}", len);
    write_file(path, bytes);
    std::string out = run_shell_checked("sha256sum " + shell_quote(path.string()), "sha256sum");
    EXPECT_EQ(sha256_file_hex(path), out.substr(0, 64)) << "length " << len;
    EXPECT_EQ(sha256_hex(bytes.data(), bytes.size()), out.substr(0, 64)) << "length " << len;
  }
}

}  // namespace
}  // namespace lintra::data
