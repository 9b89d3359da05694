// The report of a write past even the reserve after a buffer (memory/reserve.h) into its PROT_NONE
// guard (README, 'When a model writes past its memory'). The fault stays fatal. On request
// (AOTRT_REPORT_GUARD_FAULTS=1, ReportGuardFaults) a SIGSEGV handler recognises an address in a
// registered guard, writes one line to stderr naming the buffer and the faulting function, then
// hands the signal on (to the handler installed before, else the default action); faults at other
// addresses go to the previous handler untouched. No handler by default: a library does not take a
// process-wide signal unasked.
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

// The instruction a signal interrupted, from a handler's ucontext_t (0: null, or a processor other
// than x86-64 and aarch64). Async-signal-safe; the operator profiler's sampler uses it too.
uintptr_t SignalPc(void* ucontext);

// Whether the handler is installed (tests).
bool GuardFaultHandlerInstalled() noexcept;

}  // namespace aotrt
