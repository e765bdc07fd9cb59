#include "core/error.h"

#include <cstring>

namespace lintra::detail {

void throw_error(const char* file, int line, const std::string& message) {
  // Keep only the path from the project's top folder (core/..., nn/...), not the build machine's.
  const char* shown = file;
  for (const char* top : {"/core/", "/autograd/", "/nn/", "/data/", "/train/", "/app/"}) {
    if (const char* p = std::strstr(file, top)) {
      shown = p + 1;
      break;
    }
  }
  throw Error(fmt::format("{} (at {}:{})", message, shown, line));
}

}  // namespace lintra::detail
