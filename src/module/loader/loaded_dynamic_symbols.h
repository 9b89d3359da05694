// The dynamic symbols of a library the dynamic linker has loaded, read from its own mapping: the
// dynamic section (PT_DYNAMIC) names the symbol table, its strings and its hash table, all in the
// first loadable segment, which dlopen has read already. A load therefore reads no byte of the file
// for its symbols (before dlopen, elf_file.h reads only the ELF and program headers), and the
// symbols' names are views into the library's string table.
#pragma once

#include <elf.h>

#include <cstdint>
#include <string>

#include "module/loader/address_bounds.h"
#include "module/loader/elf_symbols.h"

namespace aotrt {

// The symbols of the dynamic section at `dynamic` of an object loaded at `bias` (link_map l_ld and
// l_addr), every address of which lies inside `segments` (the object's PT_LOAD segments). The
// addresses in the section may be link-time ones (a read-only section) or already biased (glibc
// rebiases a writable one in place): both are accepted. The symbol count comes from DT_HASH or
// DT_GNU_HASH; an object with neither lists no symbols (nothing can look its symbols up).
//
// The names view the object's string table: the result must not outlive the object. Never reads
// outside `segments`; throws Error(kFormatError) naming `what` and the table for a section, table
// or hash chain that does not lie inside them, or a symbol entry size other than Elf64_Sym's.
// Thread-safe (reads only).
ElfDynamicSymbols ReadLoadedDynamicSymbols(const Elf64_Dyn* dynamic, uintptr_t bias, const AddressBounds& segments,
                                           const std::string& what);

}  // namespace aotrt
