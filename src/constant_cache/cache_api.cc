// aotrt/cache.h: the directory and limit resolved from the environment as a load resolves them
// (module/runtime_config.h), the work done by constant_cache/cache_directory.h.
#include "aotrt/cache.h"

#include "module/runtime_config.h"
#include "constant_cache/cache_directory.h"

namespace aotrt {

const char* CacheEntryKindName(CacheEntryKind kind) {
  switch (kind) {
    case CacheEntryKind::kConstantPool: return "constant pool";
    case CacheEntryKind::kAlias: return "alias";
    case CacheEntryKind::kArchiveLibrary: return "archive library";
    case CacheEntryKind::kProgramBinary: return "program binary";
    case CacheEntryKind::kTemporary: return "temporary";
    case CacheEntryKind::kLock: return "lock";
    case CacheEntryKind::kOther: return "other";
  }
  return "other";
}

std::string CacheDirectory(const LoadOptions& options) { return FrontDoorLoadContext(options, "").options.cache_dir; }

uint64_t CacheMaxBytes(const LoadOptions& options) {
  uint64_t max = FrontDoorLoadContext(options, "").options.cache_max_bytes;
  return max != 0 ? max : kDefaultCacheMaxBytes;
}

CacheListing ListCache(const std::string& directory, const LoadOptions& options) {
  LoadOptions o = options;
  if (!directory.empty()) o.cache_dir = directory;
  CacheListing listing = ListCacheDirectory(CacheDirectory(o));
  listing.max_bytes = CacheMaxBytes(o);
  return listing;
}

CacheClearResult ClearCache(const std::string& directory, int lock_wait_ms) {
  return ClearCacheDirectory(directory.empty() ? CacheDirectory() : directory, lock_wait_ms);
}

}  // namespace aotrt
