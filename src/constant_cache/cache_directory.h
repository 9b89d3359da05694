// The cache directory's housekeeping, shared by the constant cache and `aotrt cache`
// (aotrt/cache.h, implemented here): which file is what (by name), the directory lock, pruning,
// listing and clearing. Its files are named as CacheEntryKind lists them (pools:
// constant_pool_file.h; compiled archives: aot/c_interface/mlf_loader.cc; program binaries and
// pipeline caches: device_module/); `.lock` lets one writer or clearer at a time in.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "aotrt/cache.h"

namespace aotrt {

constexpr char kAliasSuffix[] = ".aotrt-alias";  // (pools: kPoolSuffix, constant_pool_file.h)

// What the file called `name` is, by its name alone.
CacheEntryKind CacheEntryKindOf(const std::string& name);

// Removes the least recently used pool files of `dir` (oldest modification time first, never
// `keep`) while their sizes add up to more than `max_bytes`, then every alias whose pool is gone.
// Call with the directory locked. `log(message)` reports each removal.
void PruneCacheDirectory(const std::string& dir, const std::string& keep, uint64_t max_bytes,
                         const std::function<void(const std::string&)>& log);

// ListCache and ClearCache (aotrt/cache.h) of `dir` itself: "" is refused (kInvalidArgument), and
// the listing's max_bytes is left 0.
CacheListing ListCacheDirectory(const std::string& dir);
CacheClearResult ClearCacheDirectory(const std::string& dir, int lock_wait_ms);

}  // namespace aotrt
