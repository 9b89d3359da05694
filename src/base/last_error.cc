#include "base/last_error.h"

namespace aotrt {
namespace {

struct LastError {
  std::string message;
  ErrorCode code = ErrorCode::kOk;
  bool set = false;
  uint64_t sequence = 0;
};

LastError& Slot() {
  static thread_local LastError slot;
  return slot;
}

}  // namespace

void SetLastError(ErrorCode code, const std::string& message) {
  LastError& s = Slot();
  s.message = message;
  s.code = code;
  s.set = true;
  ++s.sequence;
}

const char* LastErrorMessage() {
  const LastError& s = Slot();
  return s.set ? s.message.c_str() : nullptr;
}

ErrorCode LastErrorCode() { return Slot().code; }

uint64_t LastErrorSequence() { return Slot().sequence; }

}  // namespace aotrt
