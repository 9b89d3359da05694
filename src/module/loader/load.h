// Loading model libraries: from a file, from memory, or a library already opened (SymbolSource),
// and the module tree packed in a library's blob `__tvm_dev_mblob` (ABI.md 5.2, 5.3).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "aotrt/module.h"
#include "module/load_context.h"
#include "module/symbol_source.h"

namespace aotrt {

class LibraryModuleNode;

// Build the module tree of a library: the shared library module (above), then the modules of
// __tvm_dev_mblob, each read with `ctx`. Returns the root (the library module itself when there
// is no blob).
Module LoadFromSymbolSource(std::shared_ptr<SymbolSource> lib, const LoadContext& ctx);

// The loads behind Module::LoadFromFile / LoadFromMemory, with the front door's context: `format`
// "" means the extension; so, tar and o are built in, another format goes to a host-registered
// `runtime.module.loadfile_<format>` or, without one, is told by the file's content. Throw as
// Module::LoadFromFile documents.
Module LoadModuleFile(const std::string& path, const std::string& format, const LoadContext& ctx);
Module LoadModuleBytes(const void* data, size_t size, const LoadContext& ctx);

// Rebuild the module tree from `blob` (the symbol's bytes, `avail` of them readable; the 8-byte
// length header comes first). `lib` is the library module that `_lib` entries stand for; `ctx`
// is the load's (its display_name names the library in messages). Each entry is read by a
// host-registered `runtime.module.loadbinary_<key>` if there is one, else by the built-in loader of
// that key (load_context.h). A legacy blob without an import tree hangs every module off a new
// library module of `lib`'s library (this load's only: `lib` may be shared by several loads).
// Returns the root. Throws kFormatError or kNotFound (loader).
ObjectPtr<ModuleNode> ProcessModuleBlob(const char* blob, uint64_t avail, const ObjectPtr<LibraryModuleNode>& lib,
                                        const LoadContext& ctx);

}  // namespace aotrt
