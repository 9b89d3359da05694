// Internal logging over spdlog. Level from the AOTRT_LOG_LEVEL environment variable
// (trace, debug, info, warn, error, off; default warn); output to stderr unless a callback was set
// with AOTRTSetLogCallback (aotrt/c_api.h).
#pragma once

#include <string>

#include "aotrt/c_api.h"

namespace aotrt {
namespace log {

enum Level : int { kTrace = 0, kDebug = 1, kInfo = 2, kWarn = 3, kError = 4, kOff = 6 };

bool Enabled(Level level);
void Write(Level level, const std::string& message);
// Behind AOTRTSetLogCallback (NULL restores stderr) and AOTRTSetLogLevel.
void SetCallback(AOTRTLogCallback cb, void* user);
void SetLevel(int level);

}  // namespace log
}  // namespace aotrt

#define AOTRT_LOG_AT(LEVEL, ...)                                          \
  do {                                                                    \
    if (::aotrt::log::Enabled(LEVEL)) ::aotrt::log::Write(LEVEL, ::aotrt::StrCat(__VA_ARGS__)); \
  } while (0)
#define AOTRT_LOG_DEBUG(...) AOTRT_LOG_AT(::aotrt::log::kDebug, __VA_ARGS__)
#define AOTRT_LOG_INFO(...) AOTRT_LOG_AT(::aotrt::log::kInfo, __VA_ARGS__)
#define AOTRT_LOG_WARN(...) AOTRT_LOG_AT(::aotrt::log::kWarn, __VA_ARGS__)
#define AOTRT_LOG_ERROR(...) AOTRT_LOG_AT(::aotrt::log::kError, __VA_ARGS__)
