// test_util.h — helpers shared by the data tests: catch a lintra::Error's message, write bytes.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"

namespace lintra::data::testing {

// Runs f and returns the message of the lintra::Error it throws; records a failure if none is thrown.
template <typename F> std::string error_of(F&& f) {
  try {
    f();
  } catch (const lintra::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a lintra::Error";
  return "";
}

}  // namespace lintra::data::testing
