// simd_targets.h — run a test once per SIMD target: the dispatched CPU kernels (core/simd.h) are
// forced onto each Highway target this binary holds and this CPU can run, so every target's code is
// checked against the reference on the machine at hand (an AVX-512 machine runs AVX3, AVX2, SSE4, …;
// an AVX2 machine all but AVX3).
//
//   class CoreFoo : public testing::SimdTargetTest {};
//   TEST_P(CoreFoo, MatchesReference) { … }
//   LINTRA_ON_EVERY_SIMD_TARGET(CoreFoo);   // tests CoreFoo.MatchesReference/AVX2, …/SSE4, …
#pragma once

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include "core/simd.h"

namespace lintra::testing {

class SimdTargetTest : public ::testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override {
    hwy::SetSupportedTargetsForTest(GetParam());
    ASSERT_EQ(simd_target(), simd_target_name(GetParam())) << "the forced target is not the dispatched one";
  }
  void TearDown() override { hwy::SetSupportedTargetsForTest(0); }
};

inline std::string simd_target_param_name(const ::testing::TestParamInfo<int64_t>& info) {
  return simd_target_name(info.param);
}

}  // namespace lintra::testing

#define LINTRA_ON_EVERY_SIMD_TARGET(Suite)                                                      \
  INSTANTIATE_TEST_SUITE_P(, Suite, ::testing::ValuesIn(::lintra::simd_targets()), \
                           ::lintra::testing::simd_target_param_name)
