// test_util.h — helpers shared by the data tests (error_of from tests/test_util.h).
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "tests/test_util.h"

namespace lintra::data::testing {

using lintra::testing::error_of;

}  // namespace lintra::data::testing
