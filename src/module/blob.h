// Parsing of the packed module blob `__tvm_dev_mblob` (ABI.md 5.2, 5.3) into a module tree.
#pragma once

#include <cstdint>
#include <string>

#include "aotrt/module.h"
#include "module/load_context.h"

namespace aotrt {

// Rebuild the module tree from `blob` (the symbol's bytes, `avail` of them readable; the 8-byte
// length header comes first). `lib` is the library module that `_lib` entries stand for; `ctx`
// is the load's (passed to each binary loader; its display_name names the library in messages).
// Each entry is read by a host-registered `runtime.module.loadbinary_<key>` if there is one (the
// packed path: a dmlc::Stream* handle and the bytes left), else by the built-in typed loader of
// that key (load_context.h). A legacy blob without an import tree hangs every module off
// `legacy_root` (a library module of this load only; `lib` may be shared by several loads).
// Returns the root. Throws kFormatError or kNotFound (loader).
ObjectPtr<ModuleNode> ProcessModuleBlob(const char* blob, uint64_t avail, const ObjectPtr<ModuleNode>& lib,
                                        const ObjectPtr<ModuleNode>& legacy_root, const LoadContext& ctx);

// Name of the global that loads modules of `type_key` from a blob: runtime.module.loadbinary_<key>.
std::string BinaryLoaderName(const std::string& type_key);

}  // namespace aotrt
