// The calling thread's last-error slot behind TVMGetLastError / AOTRTGetLastErrorCode.
#pragma once

#include <cstdint>
#include <string>

#include "aotrt/error.h"

namespace aotrt {

void SetLastError(ErrorCode code, const std::string& message);
// NULL when no error was recorded on this thread.
const char* LastErrorMessage();
ErrorCode LastErrorCode();
// Counts SetLastError calls on this thread: tells whether a failing call set a message of its own.
// Read around every model call, so it is plain initial-exec TLS: one load, no guard, no call.
extern __thread uint64_t t_last_error_sequence __attribute__((tls_model("initial-exec")));
inline uint64_t LastErrorSequence() { return t_last_error_sequence; }

}  // namespace aotrt
