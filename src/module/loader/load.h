// Loading model libraries: from a file, from memory, or a library already opened (SymbolSource).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "aotrt/module.h"
#include "module/load_context.h"
#include "module/symbol_source.h"

namespace aotrt {

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
// How a library loaded from `size` bytes in memory is named in messages.
std::string InMemoryName(size_t size);

}  // namespace aotrt
