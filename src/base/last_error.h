// The calling thread's last-error record behind TVMGetLastError / AOTRTGetLastErrorCode: a message
// with an ErrorCode, or a Python exception object set by a Python callback (ABI.md 11.2b, 11.5).
#pragma once

#include <cstdint>
#include <string>

#include "aotrt/error.h"

namespace aotrt {

// Replaces the record (releasing a Python exception it held).
void SetLastError(ErrorCode code, const std::string& message);
// Same, for catch blocks and threads that must not throw: message "where: what" (just `what` when
// `where` is NULL); if even that copy fails, the code is kept with a static message.
void SetLastErrorNoexcept(ErrorCode code, const char* where, const char* what) noexcept;
// NULL when no error was recorded on this thread, or when the record is a Python exception.
const char* LastErrorMessage();
ErrorCode LastErrorCode();

// Host-environment functions from TVMBackendRegisterEnvCAPI ("Py_IncRef", "Py_DecRef",
// "PyErr_CheckSignals"; TVM v0.15+ also "PyGILState_Ensure", "PyGILState_Release", then used to
// take the GIL around Py_DecRef). Process-wide. False for an unknown name.
bool RegisterEnvCAPI(const char* name, void* fptr);
// Replaces the record with `py_exc`, holding one reference through the registered Py_IncRef.
// Throws kInvalidArgument when Py_IncRef was not registered (the object could not be kept).
void SetLastPythonError(void* py_exc);
// The Python exception of the record (borrowed), or NULL.
void* LastPythonError();
// Releases a held Python exception and leaves an empty message; no-op for other records.
void DropLastPythonError();

// Thrown through native frames while the record is a Python exception, so that the outermost C
// call returns -1 with that exception still recorded (the C boundary does not overwrite it).
class PendingPythonError : public Error {
 public:
  PendingPythonError() : Error(ErrorCode::kModelError, "a Python callback raised an exception") {}
};
// For code that just saw a C callee fail: rethrow a Python exception recorded since `sequence`.
void ThrowIfPythonErrorSince(uint64_t sequence);
// For code that just saw a model's function fail: its Python exception, or kModelError "<what>
// failed: <the message it recorded since `sequence`>" (saying when it recorded none).
[[noreturn]] void ThrowCalleeFailure(uint64_t sequence, const std::string& what);

// Counts record changes on this thread: tells whether a failing call set a message of its own.
// Read around every model call, so it is plain initial-exec TLS: one load, no guard, no call.
extern __thread uint64_t t_last_error_sequence __attribute__((tls_model("initial-exec")));
inline uint64_t LastErrorSequence() { return t_last_error_sequence; }
// Whether a callee recorded an error since `sequence` (LastErrorSequence() taken before the call).
inline bool LastErrorRecordedSince(uint64_t sequence) { return t_last_error_sequence != sequence; }
// The message a failing callee recorded since `sequence`, or nullptr when it recorded none (or
// recorded a Python exception): "did the callee set an error", asked one way everywhere.
inline const char* LastErrorMessageSince(uint64_t sequence) {
  return LastErrorRecordedSince(sequence) ? LastErrorMessage() : nullptr;
}

}  // namespace aotrt
