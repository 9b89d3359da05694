// libFuzzer target: the ELF symbol reader (ReadElfDynamicSymbols: the loader, inspect, the
// profiler's code map), over the input as an ELF file: every table and name must stay inside it.
#include <cstddef>
#include <cstdint>

#include "aotrt/error.h"
#include "module/loader/shared_library.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)aotrt::ReadElfDynamicSymbols(data, size, "fuzz");
  } catch (const aotrt::Error&) {
  }
  return 0;
}
