// Checking at load that every symbol a model library needs resolves. With RTLD_LAZY a function a
// library calls is looked up only at its first call, and a missing one ends the process ("symbol
// lookup error", exit 127); this turns that into an error before anything runs.
#pragma once

#include <string>

#include "module/loader/elf_symbols.h"

namespace aotrt {

// Looks up every strong undefined symbol of `syms` (read from the library's file) for the library
// dlopened as `handle`, in the order the dynamic linker resolves it. Throws kNotFound naming `what`
// and each missing symbol with its usual provider; the caller still owns (and should close) the
// handle. Cost: two hash lookups per symbol (bench/bench_symbols.cc). Thread-safe.
void CheckUndefinedSymbolsResolve(void* handle, const ElfDynamicSymbols& syms, const std::string& what);

}  // namespace aotrt
