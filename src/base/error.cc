#include "aotrt/error.h"

#include "base/error_util.h"

namespace aotrt {

const char* ErrorCodeName(ErrorCode code) {
  static const char* const kNames[] = {"Ok", "InvalidArgument", "NotFound", "OutOfRange", "TypeMismatch",
                                       "ShapeMismatch", "FormatError", "IOError", "OutOfMemory", "ModelError",
                                       "NotImplemented", "Internal", "Interrupted"};  // indexed by value
  static_assert(static_cast<int>(ErrorCode::kInterrupted) == 12, "a name for every code");
  auto i = static_cast<size_t>(code);
  return i < sizeof(kNames) / sizeof(kNames[0]) ? kNames[i] : "Unknown";
}

void ThrowEmptyHandle(const char* type) {
  throw Error(ErrorCode::kInvalidArgument, StrCat("empty aotrt::", type,
                                                  ": it holds nothing (default-constructed or moved from); assign one "
                                                  "before using it"));
}

}  // namespace aotrt
