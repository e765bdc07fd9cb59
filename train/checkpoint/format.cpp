// format.cpp — what the writer and the reader of a checkpoint share (DESIGN.md §7): the file digest
// over every dataset's path and digest, dotted names as HDF5 paths, problem messages.
#include <xxhash.h>

#include <algorithm>

#include "train/checkpoint/checkpoint.h"
#include "train/checkpoint/detail.h"

namespace lintra::detail {

uint64_t file_digest(std::vector<std::pair<std::string, uint64_t>> entries) {
  std::sort(entries.begin(), entries.end());
  std::string buffer;
  for (const auto& [path, digest] : entries) {
    buffer += path;
    buffer.push_back('\0');
    for (int i = 0; i < 8; ++i) buffer.push_back(char((digest >> (8 * i)) & 0xff));
  }
  return XXH3_64bits(buffer.data(), buffer.size());
}

std::string hex(uint64_t v) { return fmt::format("0x{:016x}", v); }

std::vector<std::string> split_name(const std::string& name) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = name.find('.', start);
    parts.push_back(name.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

std::string dotted_to_path(const std::string& root, const std::string& dotted) {
  std::string p = root;
  for (const auto& part : split_name(dotted)) p += "/" + part;
  return p;
}

std::string problems_message(const std::vector<std::string>& problems) {
  std::string msg = problems.front();
  for (size_t i = 1; i < problems.size() && i < 6; ++i) msg += "\n  also: " + problems[i];
  if (problems.size() > 6) msg += fmt::format("\n  … and {} more problems", problems.size() - 6);
  return msg;
}


}  // namespace lintra::detail
