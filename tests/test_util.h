// test_util.h — what every test folder shares: the message of the lintra::Error a call throws, an
// expectation that a text contains a part (printing the text when it does not), gtest's printing and
// naming of a Device parameter, and the skip of a test that needs a GPU (experiments/gpu/check.sh counts
// its message).
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
// A Device parameter's part of a test's name: its name without the colon ("strict0", "cuda0").
inline std::string device_test_name(const ::testing::TestParamInfo<Device>& info) {
  std::string s = info.param.str();
  std::erase(s, ':');
  return s;
}
}  // namespace lintra::testing

// Skips the running test where no GPU is visible or the build has no CUDA; _ON(device): only when the
// test's device is a GPU.
#define LINTRA_SKIP_WITHOUT_GPU() \
  if (!::lintra::cuda_available()) GTEST_SKIP() << "no CUDA device visible (or a build without CUDA)"
#define LINTRA_SKIP_WITHOUT_GPU_ON(device) \
  if ((device).is_cuda()) LINTRA_SKIP_WITHOUT_GPU()

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
