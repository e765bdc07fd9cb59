// fuzz_util.h — what the libFuzzer targets of fuzz/ share: a scratch folder in memory (/dev/shm) for
// readers that take paths, splitting one input into parts, and the two rules every target checks:
// a bad input may only ever throw lintra::Error (anything else propagates and libFuzzer reports it),
// and a property that must hold aborts with a message when it does not (FUZZ_CHECK).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

#define FUZZ_CHECK(cond, what)                                                      \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "FUZZ_CHECK failed: %s (%s:%d)\n", what, __FILE__, __LINE__); \
      std::abort();                                                                 \
    }                                                                               \
  } while (0)

namespace lintra::fuzz {

// Runs f; a lintra::Error is the expected answer to a bad input. Returns true when f returned.
template <typename F>
bool accepts(F&& f) {
  try {
    f();
    return true;
  } catch (const lintra::Error&) {
    return false;
  }
}

// A folder of this process's own under /dev/shm (else the temp directory), removed at exit.
inline const std::filesystem::path& scratch_dir(const char* target) {
  static const std::filesystem::path dir = [&] {
    const std::filesystem::path base =
        std::filesystem::is_directory("/dev/shm") ? std::filesystem::path("/dev/shm") : std::filesystem::temp_directory_path();
    std::filesystem::path d = base / (std::string("lintra-fuzz-") + target + "-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    static struct Remover {
      std::filesystem::path p;
      ~Remover() {
        std::error_code ec;
        std::filesystem::remove_all(p, ec);
      }
    } remover{d};
    return d;
  }();
  return dir;
}

inline void write_file(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

// The input cut at its first `n - 1` occurrences of `sep` (fewer parts when it holds fewer).
inline std::vector<std::string_view> split(const uint8_t* data, size_t size, char sep, size_t n) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < n) {
    const size_t at = rest.find(sep);
    if (at == std::string_view::npos) break;
    parts.push_back(rest.substr(0, at));
    rest.remove_prefix(at + 1);
  }
  parts.push_back(rest);
  return parts;
}

}  // namespace lintra::fuzz
