// file_io.cpp — whole-file reads (plain and gzip through zlib) and writes.
#include "data/files/file_io.h"

#include <zlib.h>

#include <cerrno>
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

std::vector<uint8_t> read_file_maybe_gz(const fs::path& path) {
  if (!is_gzip_file(path)) return read_file(path);
  gzFile f = gzopen(path.c_str(), "rb");
  LINTRA_CHECK(f != nullptr, "cannot open '{}' as gzip: {}", path.string(), std::strerror(errno));
  std::vector<uint8_t> out;
  constexpr size_t kChunk = 1 << 20;
  for (;;) {
    size_t old = out.size();
    out.resize(old + kChunk);
    int got = gzread(f, out.data() + old, unsigned(kChunk));
    if (got < 0) {
      int errnum = 0;
      std::string msg = gzerror(f, &errnum);
      gzclose(f);
      LINTRA_FAIL("corrupt gzip data in '{}' after {} decompressed bytes: {}", path.string(), old, msg);
    }
    out.resize(old + size_t(got));
    if (got == 0) break;
  }
  gzclose(f);
  return out;
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
