// What the loader checks in a shared library file before dlopen maps it, read with pread: the ELF
// and program headers, the section headers and the dynamic symbol and string tables, a few KiB
// whatever the file's size. Mapping the whole file instead costs an mmap, a munmap and a page
// fault per region touched, about 10 us of a load on a hit; the bytes read are the same.
#pragma once

#include <string>

#include "module/loader/elf_symbols.h"

namespace aotrt {

// Checks that every PT_LOAD segment lies inside the file (CheckElfSegmentsInFile) and returns the
// file's dynamic symbols (ReadElfDynamicSymbols), both with the same errors as on a mapped file.
// Throws kNotFound (no such file), kIOError (not a regular file, cannot be opened or read) or
// kFormatError (not ELF64 little-endian, a header or table outside the file), naming the file
// as `what`. Reads nothing outside the file; thread-safe (no shared state).
ElfDynamicSymbols ReadSharedLibraryFile(const std::string& path, const std::string& what);

}  // namespace aotrt
