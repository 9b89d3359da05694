// libFuzzer target: the ELF symbol readers. The input is read twice: as an ELF file by the
// section-header walk (ReadElfDynamicSymbols: inspect, the profiler's code map), and as a loaded
// library's image by the dynamic-section walk the loader runs after dlopen
// (ReadLoadedDynamicSymbols), with the dynamic section at its start, link-time addresses relative
// to it, and the input as the only segment: every table, hash chain and name must stay inside it.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "aotrt/error.h"
#include "module/loader/elf_symbols.h"
#include "module/loader/loaded_dynamic_symbols.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)aotrt::ReadElfDynamicSymbols(data, size, "fuzz");
  } catch (const aotrt::Error&) {
  }
  // An aligned copy (the entries are read as Elf64_Dyn); the segment is the input's `size` bytes.
  std::vector<Elf64_Dyn> words((size + sizeof(Elf64_Dyn) - 1) / sizeof(Elf64_Dyn));
  if (size == 0) return 0;
  std::memcpy(words.data(), data, size);
  auto base = reinterpret_cast<uintptr_t>(words.data());
  aotrt::AddressBounds image({{base, base + size, false}});
  try {
    (void)aotrt::ReadLoadedDynamicSymbols(words.data(), base, image, "fuzz");
  } catch (const aotrt::Error&) {
  }
  return 0;
}
