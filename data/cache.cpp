// cache.cpp — data_root(): override, $LINTRA_DATA, or the repository's data/cache.
#include "data/cache.h"

#include <cstdlib>

#ifndef LINTRA_SOURCE_DIR
#error "LINTRA_SOURCE_DIR must be defined by data/CMakeLists.txt"
#endif

namespace lintra::data {

std::filesystem::path data_root(const std::string& override_dir) {
  if (!override_dir.empty()) return override_dir;
  const char* env = std::getenv("LINTRA_DATA");
  if (env != nullptr && env[0] != '\0') return env;
  return std::filesystem::path(LINTRA_SOURCE_DIR) / "data" / "cache";
}

}  // namespace lintra::data
