// What the loader checks in a shared library file before dlopen maps it, read with one pread: the
// ELF header and the program headers, whatever the file's size. dlopen maps a truncated file's
// segments past its end, and touching them raises SIGBUS inside the dynamic linker; the file's
// size against its PT_LOAD segments rules that out. The symbols are read after dlopen from the
// library's own mapping (loaded_dynamic_symbols.h), not from the file.
#pragma once

#include <cstddef>
#include <string>

namespace aotrt {

// Checks that the file at `path` is a regular ELF64 little-endian file made for this process's
// processor (CheckElfMachine) whose every PT_LOAD segment lies inside it (CheckElfSegments). Throws
// kNotFound (no such file), kIOError (not a regular file, cannot be opened or read) or kFormatError
// (another processor's, not ELF64 little-endian, program headers outside the file, a truncated
// segment), naming the file as `what`. Thread-safe (no shared state).
void CheckSharedLibraryFile(const std::string& path, const std::string& what);

// Checks e_machine of the ELF file whose first `size` bytes are at `head` against the processor this
// library was built for, before anything maps or links the file: throws kFormatError naming both,
// e.g. "model.so was built for AArch64 (EM_AARCH64); this process runs on x86-64 (EM_X86_64)".
// Bytes that are not ELF are left to the other checks; on a processor it does not know, accepts any.
void CheckElfMachine(const char* head, size_t size, const std::string& what);

// CheckElfMachine on the file at `path` (an object of a .o or .tar export, before it is linked).
// Throws kIOError when it cannot be read. Thread-safe.
void CheckElfObjectFile(const std::string& path, const std::string& what);

}  // namespace aotrt
