// Logging: level names, the level filter, the callback, and the C setters' errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "aotrt/c_api.h"
#include "base/logging.h"

using namespace aotrt;

namespace {

std::vector<std::pair<int, std::string>>* records = nullptr;

void Collect(int level, const char* message, void*) { records->emplace_back(level, message); }

// Routes records into `out` for the scope; restores stderr and the warn level after.
struct CapturedLog {
  explicit CapturedLog(std::vector<std::pair<int, std::string>>* out) {
    records = out;
    EXPECT_EQ(AOTRTSetLogCallback(&Collect, nullptr), 0);
  }
  ~CapturedLog() {
    AOTRTSetLogCallback(nullptr, nullptr);
    AOTRTSetLogLevel(log::kWarn);
    records = nullptr;
  }
};

}  // namespace

TEST(Logging, LevelNamesAreCaseInsensitiveAndWarnIsNotOff) {
  EXPECT_EQ(log::ParseLevel("WARN"), log::kWarn);
  EXPECT_EQ(log::ParseLevel("warning"), log::kWarn);
  EXPECT_EQ(log::ParseLevel("Warning"), log::kWarn);
  EXPECT_EQ(log::ParseLevel("trace"), log::kTrace);
  EXPECT_EQ(log::ParseLevel("DEBUG"), log::kDebug);
  EXPECT_EQ(log::ParseLevel("info"), log::kInfo);
  EXPECT_EQ(log::ParseLevel("ERROR"), log::kError);
  EXPECT_EQ(log::ParseLevel("critical"), log::kCritical);
  EXPECT_EQ(log::ParseLevel("off"), log::kOff);
  EXPECT_EQ(log::ParseLevel("2"), log::kInfo);
  EXPECT_EQ(log::ParseLevel("verbose"), -1);
  EXPECT_EQ(log::ParseLevel("7"), -1);
  EXPECT_EQ(log::ParseLevel(""), -1);
}

TEST(Logging, RecordsBelowTheLevelAreDropped) {
  std::vector<std::pair<int, std::string>> got;
  CapturedLog capture(&got);
  ASSERT_EQ(AOTRTSetLogLevel(log::kInfo), 0);
  AOTRT_LOG_DEBUG("not shown ", 1);
  AOTRT_LOG_INFO("shown ", 2);
  AOTRT_LOG_ERROR("shown ", 3);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], std::make_pair(static_cast<int>(log::kInfo), std::string("shown 2")));
  EXPECT_EQ(got[1].first, log::kError);
  ASSERT_EQ(AOTRTSetLogLevel(log::kOff), 0);
  AOTRT_LOG_ERROR("not shown either");
  EXPECT_EQ(got.size(), 2u);
}

TEST(Logging, SetLevelRefusesALevelOutOfRangeAndKeepsTheOldOne) {
  std::vector<std::pair<int, std::string>> got;
  CapturedLog capture(&got);
  ASSERT_EQ(AOTRTSetLogLevel(log::kError), 0);
  EXPECT_EQ(AOTRTSetLogLevel(7), -1);
  EXPECT_EQ(AOTRTGetLastErrorCode(), static_cast<int>(ErrorCode::kInvalidArgument));
  EXPECT_NE(std::string(TVMGetLastError()).find("0 (trace) .. 6 (off)"), std::string::npos) << TVMGetLastError();
  EXPECT_EQ(AOTRTSetLogLevel(-1), -1);
  AOTRT_LOG_WARN("dropped: the level is still error");
  AOTRT_LOG_ERROR("kept");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].second, "kept");
}
