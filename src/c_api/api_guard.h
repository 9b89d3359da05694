// The C boundary: the only place where exceptions become -1 plus the thread's last error.
#pragma once

#include <new>

#include "aotrt/error.h"
#include "base/last_error.h"

#define AOTRT_API_BEGIN() try {
#define AOTRT_API_END()                                                                  \
  }                                                                                      \
  catch (const ::aotrt::PendingPythonError&) {                                           \
    return -1; /* the Python exception stays the last error */                           \
  }                                                                                      \
  catch (const ::aotrt::Error& e) {                                                      \
    ::aotrt::SetLastError(e.code(), e.what());                                           \
    return -1;                                                                           \
  }                                                                                      \
  catch (const std::bad_alloc&) {                                                        \
    ::aotrt::SetLastError(::aotrt::ErrorCode::kOutOfMemory, "out of memory");            \
    return -1;                                                                           \
  }                                                                                      \
  catch (const std::exception& e) {                                                      \
    ::aotrt::SetLastError(::aotrt::ErrorCode::kInternal, e.what());                      \
    return -1;                                                                           \
  }                                                                                      \
  catch (...) {                                                                          \
    ::aotrt::SetLastError(::aotrt::ErrorCode::kInternal, "unknown C++ exception");      \
    return -1;                                                                           \
  }                                                                                      \
  return 0;

#define AOTRT_CHECK_HANDLE(H, WHAT) \
  AOTRT_REQUIRE((H) != nullptr, kInvalidArgument, WHAT, ": null handle")
