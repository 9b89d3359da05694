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
uint64_t LastErrorSequence();

}  // namespace aotrt
