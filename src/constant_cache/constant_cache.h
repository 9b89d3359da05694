// The constant cache's policy: when a USMP constant pool (ABI.md 7.3) is mapped read-only from a
// file every process shares, under which key, and when it is a private copy (README, 'The constant
// cache'; costs in bench/README.md). constant_pool_file.h is the file format and its checks,
// cache_directory.h the directory's housekeeping. A cache failure is never an error: it gives a
// private copy, with a debug log. The directory must be trusted: whoever can write it can change a
// model's constants. Truncating a mapped pool file in place (nothing in aotrt does) makes reads fault.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "constant_cache/constant_pool_memory.h"
#include "aotrt/options.h"

namespace aotrt {

struct ConstantCacheOptions {
  bool enabled = true;             // false: always a private copy
  bool verify = false;             // hash the whole payload at every open
  std::string directory;           // "": no directory, so a private copy
  size_t min_bytes = size_t{64} << 10;  // smaller pools are private copies
  uint64_t max_bytes = kDefaultCacheMaxBytes;  // pool files kept in the directory (LRU beyond it)

  // What a load's options ask for (the front door has merged the environment into them and
  // resolved the directory).
  static ConstantCacheOptions From(const LoadOptions& load);
};


// Identity of a model file for a cache key: device, inode, size, and modification and change
// times in nanoseconds, so that replacing or rewriting the file changes the key (ctime cannot be
// set back by `touch -d` or `cp -p`), and the same file reached by another path (relative,
// absolute, a link) keeps it. "" when stat fails.
std::string FileIdentityKey(const std::string& path);

// Identity by content, for a model loaded from memory: "xxh3-128:<32 hex digits>" of the byte
// ranges as if concatenated (e.g. every constant's serialized bytes; the key also carries their
// names, offsets and lengths). Costs a pass over them (~3 ms per 32 MiB).
std::string ContentKey(const std::vector<std::pair<const void*, size_t>>& ranges);

// Bytes GetConstantPool appends to a key (at most): callers reserve them when building it.
constexpr size_t kConstantPoolKeySuffixBytes = 32;

// What a pool is built from. On a hit only `key` is called (the constants are not read); `plan`
// (the pool's exact usable bytes: parses the constants) is called on a miss or when the cache is
// not used, then `fill(dst)` writes the usable bytes into zeroed memory.
struct ConstantPoolSource {
  size_t bytes_min = 0, bytes_max = 0;  // bounds on plan()'s result known without it (metadata)
  std::function<std::string()> key;     // the alias's identity (see GetConstantPool)
  std::function<size_t()> plan;
  std::function<void(uint8_t*)> fill;
};

// The pool of `source`: mapped from the cache on a hit (kMappedCache: a pool file whose size lies
// in [bytes_min, bytes_max]), else a private copy (kBuiltCache when this load wrote its cache file,
// kPrivateCopy when the cache is off, the pool too small or the directory unusable). `key()`
// (called only when the cache is used) returns what names the alias: the model file's identity
// (FileIdentityKey) or a content hash for a model loaded from memory, plus the constants' names,
// offsets and lengths; the layout version is mixed in here. An exception from `fill` is propagated
// and nothing is written. `what` names the model in log messages and, in the pool file, for
// listings. cache_path() is the alias. Thread-safe and safe across processes. Throws
// Error(kOutOfMemory) when even the private copy cannot be allocated, or whatever `key`, `plan` or
// `fill` throws.
ConstantPoolMemory GetConstantPool(const ConstantPoolSource& source, const ConstantCacheOptions& options,
                                   const std::string& what);

}  // namespace aotrt
