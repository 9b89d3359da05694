// Opening model libraries with dlopen, with checks that turn every failure into a clear error:
// the file before dlopen (elf_file.h), and after it that every symbol the library needs resolves.
// With RTLD_LAZY a function a library calls is looked up only at its first call, and a missing one
// ends the process ("symbol lookup error", exit 127); the check turns that into an error first.
#pragma once

#include <memory>
#include <string>

#include "module/loader/elf_symbols.h"
#include "module/symbol_source.h"

namespace aotrt {

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
