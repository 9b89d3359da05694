// Reading the C ABI's versioned option structs (AOTRTLoadOptions, AOTRTExecutorOptions): the size
// check that refuses a struct from another header, and 0/1 flags.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/error_util.h"

namespace aotrt {

// kInvalidArgument unless `struct_size` is this library's sizeof the struct named `type`.
inline void RequireStructSize(uint32_t struct_size, size_t expected, const char* type) {
  AOTRT_REQUIRE(struct_size == expected, kInvalidArgument, type, ".struct_size is ", struct_size, ": expected ", expected,
                " (initialize the struct with ", type, "Init of this library's header)");
}

// A 0/1 field `type`.`field`; kInvalidArgument for anything else.
inline bool CFlag(int32_t v, const char* type, const char* field) {
  AOTRT_REQUIRE(v == 0 || v == 1, kInvalidArgument, type, ".", field, " is ", v, ": expected 0 or 1");
  return v == 1;
}

}  // namespace aotrt
