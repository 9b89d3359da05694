// Symbol export macro. aotrt builds with hidden visibility; only declarations marked AOTRT_API
// (the C++ API) and TVM_DLL (the C ABI) are exported from libaotrt.so.
#pragma once

#define AOTRT_API __attribute__((visibility("default")))
