// file_io.h — whole-file reads and writes for the data readers, with transparent gunzip.
//
// Data files here are small enough to hold in memory (MNIST train images: 47 MB). Errors name the
// path and the operation that failed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace lintra::data {

// The bytes of `path`. Throws when the file is missing or unreadable.
std::vector<uint8_t> read_file(const std::filesystem::path& path);

// As read_file, but a gzip file (magic 1f 8b) is decompressed with zlib; the result is the
// decompressed stream, so byte offsets in later errors count decompressed bytes.
std::vector<uint8_t> read_file_maybe_gz(const std::filesystem::path& path);

// The decompressed bytes of gzip data (every member, in order; bytes after the last are ignored, as
// gzip does). Throws naming `name` for corrupt or truncated data.
std::vector<uint8_t> gunzip(const std::vector<uint8_t>& bytes, const std::string& name);

// Writes `bytes` to `path` (replacing it), creating parent directories. Throws on failure.
void write_file(const std::filesystem::path& path, const std::vector<uint8_t>& bytes);

// True when `path` names a gzip file (its first two bytes are 1f 8b).
bool is_gzip_file(const std::filesystem::path& path);

}  // namespace lintra::data
