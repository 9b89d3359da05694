// ELF shared libraries: reading them, bounded (never outside the given bytes; corrupt input gives
// Error(kFormatError)), and opening them with dlopen with checks that turn every failure into a
// clear error: a truncated file (which would raise SIGBUS inside the dynamic linker) before
// dlopen, a symbol nothing provides (which would end the process at its first call) after.
#pragma once

#include <elf.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/error_util.h"
#include "base/mapped_file.h"
#include "module/symbol_source.h"

namespace aotrt {

// Names are views into the symbol string table they were read from (the buffer given to
// ReadElfDynamicSymbols): a list must not outlive it. Each is NUL-terminated in place (a name
// without its NUL inside the table is skipped).
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

// The `bytes` bytes at `off` of the `size` bytes at `base`. Throws kFormatError naming `what` and
// `field` when they do not lie inside.
inline const char* ElfBytesAt(const char* base, size_t size, uint64_t off, uint64_t bytes, const std::string& what,
                              const char* field) {
  AOTRT_REQUIRE(off <= size && bytes <= size - off, kFormatError, what, ": ELF ", field, " at offset ", off, " (",
                bytes, " bytes) lies outside the ", size, "-byte file");
  return base + off;
}

// The T at byte `off` (read with memcpy: ELF structures in a file need no alignment), as ElfBytesAt.
template <typename T>
T ReadElfAt(const char* base, size_t size, uint64_t off, const std::string& what, const char* field) {
  T v;
  std::memcpy(&v, ElfBytesAt(base, size, off, sizeof(T), what, field), sizeof(T));
  return v;
}

// The header of the `size` bytes at `base`, checked to be ELF64 little-endian (else kFormatError).
Elf64_Ehdr ReadElfHeader(const char* base, size_t size, const std::string& what);

// Calls `visit(name, symbol)` for every named symbol of every section of type `section_type`
// (SHT_SYMTAB, SHT_DYNSYM) of the ELF file in `data`. Throws kFormatError naming `what` for a
// header, table or string table that does not lie inside the file.
void ForEachElfSymbol(const void* data, size_t size, const std::string& what, uint32_t section_type,
                      const std::function<void(std::string_view, const Elf64_Sym&)>& visit);

ElfDynamicSymbols ReadElfDynamicSymbols(const void* data, size_t size, const std::string& what);

// st_value of the defined global or weak function or object symbol `name` in the file's static
// symbol table (.symtab), or 0 when the file has none (stripped) or does not define `name`.
uint64_t FindElfStaticSymbol(const void* data, size_t size, const std::string& what, const std::string& name);

// Checks that `file` (MappedFile throws kNotFound for no such file, kIOError for one that is not
// regular or cannot be read) is an ELF64 little-endian file made for this process's processor
// whose every PT_LOAD segment lies inside it. Throws kFormatError (another processor's, e.g.
// "model.so was built for AArch64 (EM_AARCH64); this process runs on x86-64 (EM_X86_64)", not
// ELF64 little-endian, program headers outside the file, a truncated segment), naming the file as
// `what`. Thread-safe (no shared state).
void CheckSharedLibraryFile(const MappedFile& file, const std::string& what);

// The processor check alone, on the file at `path` (an object of a .o or .tar export, before it is
// linked); not ELF: no check. Throws what MappedFile throws when it cannot be read. Thread-safe.
void CheckElfObjectFile(const std::string& path, const std::string& what);

// Looks up every strong undefined symbol of `syms` (the loaded library's dynamic symbols) for the library
// dlopened as `handle`, in the order the dynamic linker resolves it. Throws kNotFound naming `what`
// and each missing symbol with its usual provider; the caller still owns (and should close) the
// handle. Cost: two hash lookups per symbol (bench/bench_symbols.cc). Thread-safe.
void CheckUndefinedSymbolsResolve(void* handle, const ElfDynamicSymbols& syms, const std::string& what);

// dlopen `path` RTLD_LAZY | RTLD_LOCAL after checking it is an ELF shared library, then check that
// every symbol it leaves undefined resolves (against aotrt, the process, or the libraries it needs);
// if not, the library is closed again and kNotFound names each missing symbol and its usual
// provider. First makes aotrt's own symbols globally visible. `display_name` is used in messages
// (for a library loaded from memory the path is /proc/self/fd/N). `is_source_file`: `path` is the
// user's model file (its source_file()), not a memory image or a temporary link. Throws kNotFound,
// kIOError, kFormatError.
std::shared_ptr<SymbolSource> OpenSharedLibrary(const std::string& path, const std::string& display_name,
                                                bool is_source_file = false);

}  // namespace aotrt
