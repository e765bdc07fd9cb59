// file_io.cpp — whole-file reads (plain and gzip through zlib) and writes.
#include "data/files/file_io.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>

#include "core/error.h"

namespace lintra::data {

namespace fs = std::filesystem;

std::vector<uint8_t> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  LINTRA_CHECK(in.good(), "cannot open '{}': {}", path.string(), std::strerror(errno));
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  LINTRA_CHECK(size >= 0, "cannot determine the size of '{}'", path.string());
  in.seekg(0, std::ios::beg);
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  if (size > 0) in.read(reinterpret_cast<char*>(bytes.data()), size);
  LINTRA_CHECK(in.good() && in.gcount() == size, "read error in '{}' ({} of {} bytes read)", path.string(),
               in.gcount(), size);
  return bytes;
}

bool is_gzip_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char magic[2] = {0, 0};
  in.read(reinterpret_cast<char*>(magic), 2);
  return in.gcount() == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

namespace {

bool starts_gzip(const std::vector<uint8_t>& bytes, size_t at) {
  return bytes.size() >= at + 2 && bytes[at] == 0x1f && bytes[at + 1] == 0x8b;
}

}  // namespace

std::vector<uint8_t> gunzip(const std::vector<uint8_t>& bytes, const std::string& name) {
  LINTRA_CHECK(bytes.size() < size_t(UINT32_MAX), "'{}': {} bytes of gzip data; at most 4 GiB are read", name,
               bytes.size());
  z_stream z{};
  LINTRA_CHECK(inflateInit2(&z, 16 + MAX_WBITS) == Z_OK, "cannot start gzip decompression of '{}'", name);
  std::vector<uint8_t> out;
  z.next_in = const_cast<Bytef*>(bytes.data());
  z.avail_in = uInt(bytes.size());
  for (;;) {
    // Room for about 4× the input at first, then doubling (MNIST's images: 9.9 MB → 47 MB).
    const size_t old = out.size(), chunk = std::min<size_t>(std::max<size_t>({4096, 4 * bytes.size(), old}), 1 << 30);
    out.resize(old + chunk);
    z.next_out = out.data() + old;
    z.avail_out = uInt(chunk);
    const int rc = inflate(&z, Z_NO_FLUSH);
    out.resize(old + chunk - z.avail_out);
    const size_t consumed = bytes.size() - z.avail_in;
    if (rc == Z_STREAM_END && starts_gzip(bytes, consumed)) {  // another member follows: gzip -c a b
      inflateReset(&z);
      continue;
    }
    if (rc == Z_STREAM_END) break;  // what follows the last member is ignored, as gzip does
    if (rc == Z_OK) continue;
    const std::string msg = z.msg ? z.msg : rc == Z_BUF_ERROR ? "the data ends in the middle of a stream" : zError(rc);
    inflateEnd(&z);
    LINTRA_FAIL("corrupt gzip data in '{}' after {} decompressed bytes: {}", name, out.size(), msg);
  }
  inflateEnd(&z);
  return out;
}

std::vector<uint8_t> read_file_maybe_gz(const fs::path& path) {
  std::vector<uint8_t> bytes = read_file(path);
  return starts_gzip(bytes, 0) ? gunzip(bytes, path.string()) : bytes;
}

void write_file(const fs::path& path, const std::vector<uint8_t>& bytes) {
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  LINTRA_CHECK(out.good(), "cannot create '{}': {}", path.string(), std::strerror(errno));
  if (!bytes.empty()) out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  out.close();
  LINTRA_CHECK(out.good(), "write error in '{}'", path.string());
}

}  // namespace lintra::data
