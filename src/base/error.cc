#include "aotrt/error.h"

#include "base/error_util.h"

namespace aotrt {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return "Ok";
    case ErrorCode::kInvalidArgument: return "InvalidArgument";
    case ErrorCode::kNotFound: return "NotFound";
    case ErrorCode::kOutOfRange: return "OutOfRange";
    case ErrorCode::kTypeMismatch: return "TypeMismatch";
    case ErrorCode::kShapeMismatch: return "ShapeMismatch";
    case ErrorCode::kFormatError: return "FormatError";
    case ErrorCode::kIOError: return "IOError";
    case ErrorCode::kOutOfMemory: return "OutOfMemory";
    case ErrorCode::kModelError: return "ModelError";
    case ErrorCode::kNotImplemented: return "NotImplemented";
    case ErrorCode::kInternal: return "Internal";
    case ErrorCode::kInterrupted: return "Interrupted";
  }
  return "Unknown";
}

void ThrowEmptyHandle(const char* type) {
  throw Error(ErrorCode::kInvalidArgument, StrCat("empty aotrt::", type,
                                                  ": it holds nothing (default-constructed or moved from); assign one "
                                                  "before using it"));
}

}  // namespace aotrt
