// The shared error matcher must fail on each kind of mismatch, or the tests using it prove nothing.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <stdexcept>

#include "common/expect_error.h"

using aotrt::Error;
using aotrt::ErrorCode;

namespace {
void Throw(ErrorCode code, const char* msg) { throw Error(code, msg); }
// One mismatch each (functions: the braced lists would split EXPECT_NONFATAL_FAILURE's arguments).
void NoError() { EXPECT_AOTRT_ERROR((void)0, ErrorCode::kNotFound, {"x"}); }
void OtherCode() { EXPECT_AOTRT_ERROR(Throw(ErrorCode::kIOError, "m"), ErrorCode::kNotFound, {"m"}); }
void MissingFragment() { EXPECT_AOTRT_ERROR(Throw(ErrorCode::kNotFound, "abc"), ErrorCode::kNotFound, {"abc", "zz"}); }
void NotAotrt() { EXPECT_AOTRT_ERROR(throw std::runtime_error("plain"), ErrorCode::kNotFound, {"plain"}); }
}  // namespace

TEST(ExpectAotrtError, PassesOnCodeAndEveryFragment) {
  EXPECT_AOTRT_ERROR(Throw(ErrorCode::kNotFound, "no model 'x' in m.so"), ErrorCode::kNotFound, {"'x'", "m.so"});
}

TEST(ExpectAotrtError, FailsOnEachMismatch) {
  EXPECT_NONFATAL_FAILURE(NoError(), "no error, expected NotFound");
  EXPECT_NONFATAL_FAILURE(OtherCode(), "error code IOError, expected NotFound");
  EXPECT_NONFATAL_FAILURE(MissingFragment(), "message lacks \"zz\"");
  EXPECT_NONFATAL_FAILURE(NotAotrt(), "non-aotrt exception: plain");
}
