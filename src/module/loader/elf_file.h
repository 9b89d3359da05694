// What the loader checks in a shared library file before dlopen maps it, read with one pread: the
// ELF header and the program headers, whatever the file's size. dlopen maps a truncated file's
// segments past its end, and touching them raises SIGBUS inside the dynamic linker; the file's
// size against its PT_LOAD segments rules that out. The symbols are read after dlopen.
#pragma once

#include <string>

namespace aotrt {

// Checks that the file at `path` is a regular ELF64 little-endian file whose every PT_LOAD segment
// lies inside it (CheckElfSegments). Throws kNotFound (no such file), kIOError (not a regular file,
// cannot be opened or read) or kFormatError (not ELF64 little-endian, program headers outside the
// file, a truncated segment), naming the file as `what`. Thread-safe (no shared state).
void CheckSharedLibraryFile(const std::string& path, const std::string& what);

}  // namespace aotrt
