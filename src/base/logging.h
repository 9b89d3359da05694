// Internal logging over spdlog. Level warn until set: SetLevel (AOTRTSetLogLevel), or the top
// layer from AOTRT_LOG_LEVEL when libaotrt is loaded (module/runtime_config.h; a name,
// case-insensitive: trace, debug, info, warn or warning, error, critical, off; or 0..6); output to
// stderr unless a callback was set with AOTRTSetLogCallback (aotrt/c_api.h).
#pragma once

#include <string>

#include "base/error_util.h"

namespace aotrt {
namespace log {

enum Level : int { kTrace = 0, kDebug = 1, kInfo = 2, kWarn = 3, kError = 4, kCritical = 5, kOff = 6 };

// Receives each record: level, NUL-terminated message, the user pointer given with it.
using Callback = void (*)(int level, const char* message, void* user);

// The level named by `text` (see above), or -1 when it names none.
int ParseLevel(const std::string& text);

bool Enabled(Level level);  // lock-free
void Write(Level level, const std::string& message);
// Behind AOTRTSetLogCallback (nullptr restores stderr) and AOTRTSetLogLevel. SetLevel throws
// kInvalidArgument for a level outside 0..6.
void SetCallback(Callback cb, void* user);
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
