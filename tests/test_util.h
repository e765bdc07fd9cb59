// test_util.h — what every test folder shares: the message of the lintra::Error a call throws, an
// expectation that a text contains a part (printing the text when it does not), and gtest's printing of
// a Device parameter by its name.
#pragma once

#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "core/device.h"
#include "core/error.h"

namespace lintra {
// gtest prints a Device test parameter as "cuda:0" or "strict:0" rather than as its bytes.
inline void PrintTo(const Device& d, std::ostream* os) { *os << d.str(); }
}  // namespace lintra

namespace lintra::testing {

// Runs f and returns the message of the lintra::Error it throws; records a failure if none is thrown.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const lintra::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a lintra::Error";
  return {};
}

}  // namespace lintra::testing

#define EXPECT_HAS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << "in:\n" << (text)
