// What happens when generated code writes past even the reserve after a buffer (memory/reserve.h):
// it reaches the PROT_NONE guard pages there and faults. The process cannot go on (the code that
// faulted cannot be resumed, and unwinding out of it would skip the frames of whatever called it,
// e.g. a parallel launch on other threads), so the fault stays fatal. On request
// (AOTRT_REPORT_GUARD_FAULTS=1, ReportGuardFaults) it is not silent: a SIGSEGV handler, installed
// when the first guard is registered after that, recognises an address in a registered guard and
// writes one line to stderr before the process dies as it would have:
//
//   aotrt: fatal: generated code wrote 5,262,000 bytes past workspace pool 'global_workspace'
//   (5,233,328 bytes) of model 'default' (/models/m.so), beyond the 5,234,688-byte reserve after it;
//   the faulting instruction is in tvmgen_default_fused_nn_conv2d (/models/m.so) ...
//
// then hands the signal on: to the handler installed before (e.g. Python's faulthandler, a
// sanitizer), else to the default action (the process is killed by SIGSEGV, with a core dump
// where enabled). Faults at other addresses go to the previous handler untouched. By default no
// handler is installed: a library does not take a process-wide signal unasked.
#pragma once

#include <cstddef>
#include <cstdint>

namespace aotrt {

// Register the guard [guard_begin, guard_end) that follows a buffer of `buffer_bytes` at `buffer`
// and its reserve; `label` says what the buffer is ("workspace pool 'x' (N bytes) of model 'm'
// (lib.so)"), copied (truncated to ~220 characters). Returns a handle for UnregisterGuard, or -1
// when the table is full (the guard then still stops the write, without the message).
// Thread-safe; does not throw.
int RegisterGuard(const void* buffer, size_t buffer_bytes, const void* guard_begin, const void* guard_end,
                  const char* label) noexcept;
void UnregisterGuard(int handle) noexcept;

// Installs the handler from the next RegisterGuard on (never removed once installed). Called by
// the library's constructor when AOTRT_REPORT_GUARD_FAULTS=1. Thread-safe.
void ReportGuardFaults() noexcept;

// Whether the handler is installed (tests).
bool GuardFaultHandlerInstalled() noexcept;

}  // namespace aotrt
