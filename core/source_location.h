// source_location.h — where a call was written (file, line, function), for error messages.
// std::source_location where the standard library gives it; otherwise (clang 14 over GCC 12's
// libstdc++, the fuzz build, lacks __builtin_source_location) the same three facts from the
// __builtin_FILE/LINE/FUNCTION builtins that GCC and clang both have. Default arguments of either kind
// are evaluated at the call site.
#pragma once

#include <version>

#if defined(__cpp_lib_source_location)
#include <source_location>
#endif

namespace lintra {

#if defined(__cpp_lib_source_location)
using SourceLocation = std::source_location;
#else
struct SourceLocation {
  static constexpr SourceLocation current(const char* file = __builtin_FILE(), int line = __builtin_LINE(),
                                          const char* function = __builtin_FUNCTION()) {
    SourceLocation s;
    s.file_ = file;
    s.line_ = line;
    s.function_ = function;
    return s;
  }
  constexpr const char* file_name() const { return file_; }
  constexpr const char* function_name() const { return function_; }
  constexpr unsigned line() const { return unsigned(line_); }

 private:
  const char* file_ = "";
  const char* function_ = "";
  int line_ = 0;
};
#endif

}  // namespace lintra
