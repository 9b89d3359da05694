#include "base/last_error.h"

namespace aotrt {

__thread uint64_t t_last_error_sequence __attribute__((tls_model("initial-exec"))) = 0;

namespace {

struct LastError {
  std::string message;
  ErrorCode code = ErrorCode::kOk;
  bool set = false;
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
  ++t_last_error_sequence;
}

const char* LastErrorMessage() {
  const LastError& s = Slot();
  return s.set ? s.message.c_str() : nullptr;
}

ErrorCode LastErrorCode() { return Slot().code; }

}  // namespace aotrt
