// Reads the dynamic symbol table of an ELF64 shared library from its bytes, to tell which runtime
// symbols a model library leaves undefined (checked before anything runs, and shown by `inspect`).
// Bounded: never reads outside the given buffer; corrupt input gives Error(kFormatError).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace aotrt {

struct ElfSymbol {
  std::string name;
  uint64_t size = 0;  // st_size: bytes of a data object, 0 when unknown
};

struct ElfDynamicSymbols {
  std::vector<ElfSymbol> defined;
  // Undefined symbols the library needs resolved: strong ones only. A weak undefined reference
  // (__gmon_start__, __cxa_finalize, ...) may stay unresolved; its address is then null.
  std::vector<std::string> undefined;
  // The defined symbol called `name`, or nullptr.
  const ElfSymbol* FindDefined(const std::string& name) const {
    for (const ElfSymbol& s : defined) {
      if (s.name == name) return &s;
    }
    return nullptr;
  }
};

ElfDynamicSymbols ReadElfDynamicSymbols(const void* data, size_t size, const std::string& what);

}  // namespace aotrt
