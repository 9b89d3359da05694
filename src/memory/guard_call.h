// One place that turns any C++ exception into the thread's last error plus a failure value, for
// functions called by C code (generated model code, worker threads) that must never throw.
#pragma once

#include <new>
#include <string>
#include <utility>

#include "aotrt/error.h"
#include "base/last_error.h"

namespace aotrt {

// Records the exception being handled as the last error; `where` names the entry point.
// A pending Python exception stays the record. Call only inside a catch block.
inline void RecordCurrentException(const char* where) noexcept {
  try {
    throw;
  } catch (const PendingPythonError&) {
  } catch (const Error& e) {
    SetLastErrorNoexcept(e.code(), nullptr, e.what());  // aotrt messages already say where
  } catch (const std::bad_alloc&) {
    SetLastErrorNoexcept(ErrorCode::kOutOfMemory, where, "out of memory");
  } catch (const std::exception& e) {
    SetLastErrorNoexcept(ErrorCode::kInternal, where, e.what());
  } catch (...) {
    SetLastErrorNoexcept(ErrorCode::kInternal, where, "unknown C++ exception");
  }
}

// fn() or, if it throws, `failure` (nullptr / -1) with the exception as the last error.
template <typename R, typename Fn>
R GuardBackendCall(R failure, const char* where, Fn&& fn) noexcept {
  try {
    return std::forward<Fn>(fn)();
  } catch (...) {
    RecordCurrentException(where);
    return failure;
  }
}

// For the C++ API's entry points: std::bad_alloc from anywhere below becomes aotrt::Error
// kOutOfMemory, so a C++ caller has one exception type to catch. Returns fn()'s value.
template <typename Fn>
auto RethrowOutOfMemoryAsError(const char* where, Fn&& fn) -> decltype(fn()) {
  try {
    return std::forward<Fn>(fn)();
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::kOutOfMemory, std::string(where) + ": out of memory");
  }
}

}  // namespace aotrt
