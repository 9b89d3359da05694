// The cache directory's housekeeping, shared by the constant cache and `aotrt cache`:
// which file is what (by name), the directory lock, pruning, listing and clearing.
//
// Names: `<content>.aotrt-pool` (a constant pool, constant_cache/constant_pool_file.h), `<identity>.aotrt-alias`
// (a symbolic link from a model file's identity to the pool holding its constants), `mlf-<hash>.so`
// (a compiled C-interface archive, aot/c_interface/mlf_loader.cc), `opencl-<hash>.bin` (an OpenCL
// program binary; `vulkan-*.bin`: a Vulkan pipeline cache, device_module/), `.tmp-*` (a writer's temporary
// file), `.lock` (the directory lock: one writer or clearer at a time).
#pragma once

#include <cstdint>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "aotrt/cache.h"

namespace aotrt {

extern const char kAliasSuffix[];  // ".aotrt-alias" (pools: kPoolSuffix, constant_pool_file.h)

// What the file called `name` is, by its name alone.
CacheEntryKind CacheEntryKindOf(const std::string& name);

// Removes the least recently used pool files of `dir` (oldest modification time first, never
// `keep`) while their sizes add up to more than `max_bytes`, then every alias whose pool is gone.
// Call with the directory locked. `log(message)` reports each removal.
void PruneCacheDirectory(const std::string& dir, const std::string& keep, uint64_t max_bytes,
                         const std::function<void(const std::string&)>& log);

// Every entry of `dir`, sorted by name (pool headers read for their model). A missing directory
// lists as empty with exists = false. Throws Error(kInvalidArgument) when `dir` is "" or not a
// directory, Error(kIOError) when it cannot be read.
CacheListing ListCacheDirectory(const std::string& dir);

// Removes every pool, alias, compiled archive library, program binary and temporary file of `dir`
// under its lock (waiting at most `lock_wait_ms` for a writer to finish). Other files are left alone. Throws
// Error(kInvalidArgument) for "" or a path that is not a directory, Error(kIOError) when the lock
// is held longer than `lock_wait_ms` or a file cannot be removed (the message names it).
CacheClearResult ClearCacheDirectory(const std::string& dir, int lock_wait_ms);

}  // namespace aotrt
