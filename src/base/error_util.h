// Helpers to build and throw aotrt::Error with a message assembled from pieces.
#pragma once

#include <sstream>
#include <string>
#include <utility>

#include "aotrt/error.h"

namespace aotrt {

template <typename... Args>
std::string StrCat(Args&&... args) {
  std::ostringstream os;
  (os << ... << std::forward<Args>(args));
  return os.str();
}

}  // namespace aotrt

// Throw aotrt::Error(ErrorCode::CODE, <pieces concatenated>).
#define AOTRT_THROW(CODE, ...) throw ::aotrt::Error(::aotrt::ErrorCode::CODE, ::aotrt::StrCat(__VA_ARGS__))

// Throw when COND is false. For caller input and file bytes: never an abort.
#define AOTRT_REQUIRE(COND, CODE, ...) \
  do {                                 \
    if (!(COND)) AOTRT_THROW(CODE, __VA_ARGS__); \
  } while (0)
