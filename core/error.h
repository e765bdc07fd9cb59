// error.h — lintra's one exception type and the LINTRA_CHECK macro.
//
// Library code never exits or aborts on user error: it throws lintra::Error with a message that
// names the operation, the values involved and, where possible, a hint. Only main() decides to exit.
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>
#include <string>

namespace lintra {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

namespace detail {
[[noreturn]] void throw_error(const char* file, int line, const std::string& message);
}  // namespace detail

}  // namespace lintra

// LINTRA_CHECK(cond, "fmt {}", args...): throws lintra::Error("<message> (at core/x.cpp:12)").
#define LINTRA_CHECK(cond, ...)                                                     \
  do {                                                                              \
    if (!(cond)) [[unlikely]] {                                                     \
      ::lintra::detail::throw_error(__FILE__, __LINE__, ::fmt::format(__VA_ARGS__)); \
    }                                                                               \
  } while (0)

#define LINTRA_FAIL(...) ::lintra::detail::throw_error(__FILE__, __LINE__, ::fmt::format(__VA_ARGS__))
