// Checking at load that every symbol a model library needs resolves. With RTLD_LAZY a function a
// library calls is looked up only at its first call, and a missing one ends the process ("symbol
// lookup error", exit 127); this turns that into an error before anything runs.
#pragma once

#include <string>

#include "module/loader/elf_symbols.h"

namespace aotrt {

// Looks up every strong undefined symbol of `syms` (the loaded library's dynamic symbols) for the library
// dlopened as `handle`, in the order the dynamic linker resolves it. Throws kNotFound naming `what`
// and each missing symbol with its usual provider; the caller still owns (and should close) the
// handle. Cost: two hash lookups per symbol (bench/bench_symbols.cc). Thread-safe.
void CheckUndefinedSymbolsResolve(void* handle, const ElfDynamicSymbols& syms, const std::string& what);

// The handle of the main program (dlopen(nullptr)): dlsym on it searches the process's global scope
// only. Opened on first use and never closed (the main program is never unloaded), so a load does
// not take the dynamic linker's lock twice more for it; nullptr if dlopen refuses. Thread-safe.
void* GlobalScopeHandle();

}  // namespace aotrt
