// The C boundary: the only place where exceptions become -1 plus the thread's last error.
#pragma once

#include "memory/guard_call.h"

#define AOTRT_API_BEGIN() try {
// __func__ names the C entry point in messages that carry no context of their own.
#define AOTRT_API_END()                       \
  }                                           \
  catch (...) {                               \
    ::aotrt::RecordCurrentException(__func__); \
    return -1;                                \
  }                                           \
  return 0;
