// libFuzzer target: the ELF dynamic-symbol reader that checks model libraries before dlopen.
#include <cstddef>
#include <cstdint>

#include "aotrt/error.h"
#include "module/loader/elf_symbols.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)aotrt::ReadElfDynamicSymbols(data, size, "fuzz");
  } catch (const aotrt::Error&) {
  }
  return 0;
}
