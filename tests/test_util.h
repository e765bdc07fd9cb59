// test_util.h — what every test folder shares: the message of the lintra::Error a call throws, and
// an expectation that a text contains a part (printing the text when it does not).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"

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
