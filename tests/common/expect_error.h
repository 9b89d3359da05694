// Test helper: EXPECT_AOTRT_ERROR(stmt, code, {fragments...}) passes when `stmt` throws
// aotrt::Error with `code` and a message containing every fragment; anything else (no exception,
// another code, a missing fragment, a non-aotrt exception) fails with the message shown.
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <string>
#include <vector>

#include "aotrt/error.h"

namespace aotrt_test {

template <typename F>
::testing::AssertionResult ThrowsAotrtError(F&& fn, aotrt::ErrorCode code, const std::vector<std::string>& fragments) {
  try {
    fn();
  } catch (const aotrt::Error& e) {
    const std::string msg = e.what();
    if (e.code() != code) {
      return ::testing::AssertionFailure() << "error code " << aotrt::ErrorCodeName(e.code()) << ", expected "
                                           << aotrt::ErrorCodeName(code) << ": " << msg;
    }
    for (const std::string& frag : fragments) {
      if (msg.find(frag) == std::string::npos) {
        return ::testing::AssertionFailure() << "message lacks \"" << frag << "\": " << msg;
      }
    }
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw a non-aotrt exception: " << e.what();
  }
  return ::testing::AssertionFailure() << "no error, expected " << aotrt::ErrorCodeName(code);
}

}  // namespace aotrt_test

// The fragments are a braced list ({"a", path}) or a container of strings.
#define EXPECT_AOTRT_ERROR(stmt, code, ...) \
  EXPECT_TRUE(::aotrt_test::ThrowsAotrtError([&] { stmt; }, code, std::vector<std::string>(__VA_ARGS__)))
