// Errors of the aotrt C++ API: every failing call throws aotrt::Error, a numeric ErrorCode and a
// message naming what was wrong and what was expected. At the C boundary the message goes to
// TVMGetLastError() and the code to AOTRTGetLastErrorCode() (aotrt/c_api.h).
#pragma once

#include <stdexcept>
#include <string>

#include "aotrt/export.h"

namespace aotrt {

// Stable numeric values: they cross the C ABI.
enum class ErrorCode : int {
  kOk = 0,
  kInvalidArgument = 1,  // a value the caller passed is not acceptable (name, device, shape...)
  kNotFound = 2,         // a named thing (file, symbol, function, loader) does not exist
  kOutOfRange = 3,       // an index outside its valid range
  kTypeMismatch = 4,     // an argument of the wrong type code or dtype
  kShapeMismatch = 5,    // a tensor of the wrong shape or byte size
  kFormatError = 6,      // corrupt or truncated bytes (blob, NDArray, params, metadata, ELF)
  kIOError = 7,          // the operating system refused (open, read, dlopen)
  kOutOfMemory = 8,      // an allocation failed
  kModelError = 9,       // the model's own code returned an error
  kNotImplemented = 10,  // a feature this build does not provide
  kInternal = 11,        // a broken invariant inside aotrt: please report it
  kInterrupted = 12,     // stopped on request (RequestInterrupt, AOTRTSetInterrupt: Ctrl-C)
};

// Name of a code, e.g. "InvalidArgument"; "Unknown" for values outside the enum.
AOTRT_API const char* ErrorCodeName(ErrorCode code);

// Copyable; safe to pass across threads.
class AOTRT_API Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  // TVM's tvm::runtime::Error(message), which is this class (tvm/runtime/logging.h): kInternal.
  explicit Error(const std::string& message) : Error(ErrorCode::kInternal, message) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

// Throws Error(kInvalidArgument) "empty aotrt::<type>: ..." for an accessor called on an empty
// (default-constructed or moved-from) handle, instead of dereferencing null.
[[noreturn]] AOTRT_API void ThrowEmptyHandle(const char* type);

}  // namespace aotrt
