// Reads the symbol tables of an ELF64 file from its bytes, through its section headers: a model
// library's dynamic symbols (module/loader/shared_library.cc), the static table of the executable,
// where TVM's system-lib exports leave a symbol they do not register, and the function symbols the
// operator profile names (profiling/code_map.h). Bounded: never reads outside the given buffer;
// corrupt input gives Error(kFormatError).
#pragma once

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error_util.h"

namespace aotrt {

// Names are views into the symbol string table they were read from (the buffer given to
// ReadElfDynamicSymbols): a list must not outlive it. Each is NUL-terminated in place
// (name.data()[name.size()] == 0): a name without its NUL inside
// the table is skipped.
struct ElfSymbol {
  std::string_view name;
  uint64_t size = 0;  // st_size: bytes of a data object, 0 when unknown
};

struct ElfDynamicSymbols {
  std::vector<ElfSymbol> defined;
  // Undefined symbols the library needs resolved: strong ones only. A weak undefined reference
  // (__gmon_start__, __cxa_finalize, ...) may stay unresolved; its address is then null.
  std::vector<std::string_view> undefined;
  // The defined symbol called `name`, or nullptr.
  const ElfSymbol* FindDefined(std::string_view name) const {
    for (const ElfSymbol& s : defined) {
      if (s.name == name) return &s;
    }
    return nullptr;
  }
};

// The T at byte `off` of the `size` bytes at `base` (read with memcpy: ELF structures in a file
// need no alignment). Throws kFormatError naming `what` and `field` when it does not lie inside.
template <typename T>
T ReadElfAt(const char* base, size_t size, uint64_t off, const std::string& what, const char* field) {
  if (off > size || sizeof(T) > size - off) {
    AOTRT_THROW(kFormatError, what, ": ELF ", field, " at offset ", off, " lies outside the ", size, "-byte file");
  }
  T v;
  std::memcpy(&v, base + off, sizeof(T));
  return v;
}

// Calls `visit(name, symbol)` for every named symbol of every section of type `section_type`
// (SHT_SYMTAB, SHT_DYNSYM) of the ELF file in `data`. Throws kFormatError naming `what` for a
// header, table or string table that does not lie inside the file.
void ForEachElfSymbol(const void* data, size_t size, const std::string& what, uint32_t section_type,
                      const std::function<void(std::string_view, const Elf64_Sym&)>& visit);

ElfDynamicSymbols ReadElfDynamicSymbols(const void* data, size_t size, const std::string& what);

// The header of the `size` bytes at `base`, checked to be ELF64 little-endian.
Elf64_Ehdr ReadElfHeader(const char* base, size_t size, const std::string& what);

// Every loadable segment (PT_LOAD) lies inside the file: dlopen maps segments past the end of a
// truncated file, and touching them then raises SIGBUS. `base` holds the file's first `avail`
// bytes (the ELF and program headers), `size` is the file's size. Throws kFormatError naming the
// segment, its file range and the file size.
void CheckElfSegments(const char* base, size_t avail, uint64_t size, const std::string& what);

// st_value of the defined global or weak function or object symbol `name` in the file's static
// symbol table (.symtab), or 0 when the file has none (stripped) or does not define `name`.
uint64_t FindElfStaticSymbol(const void* data, size_t size, const std::string& what, const std::string& name);

}  // namespace aotrt
